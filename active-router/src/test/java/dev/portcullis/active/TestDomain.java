package dev.portcullis.active;

import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.auth.SessionRequest;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.packet.MacAlgorithm;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/** The sample domain, config/rosa.xml, moved to free loopback ports and a private PKI directory. */
public final class TestDomain {
  private TestDomain() {}

  public static RosaConfig config(Path dir) throws Exception {
    return config(dir, s -> s);
  }

  /** The sample with {@code edit} applied to its text after the port changes. */
  public static RosaConfig config(Path dir, UnaryOperator<String> edit) throws Exception {
    String xml = Files.readString(Path.of("..", "config", "rosa.xml"));
    // Every port held until all are chosen, so that no two are the same (a port closed and asked
    // for again can come back: the Authorization Server once found the Code Server on its port).
    try (ServerSocket as = tcp();
        ServerSocket cs = tcp();
        DatagramSocket r1 = udp();
        DatagramSocket r2 = udp();
        DatagramSocket src = udp()) {
      xml = xml.replace("127.0.0.1:7443", "127.0.0.1:" + as.getLocalPort());
      xml = xml.replace("127.0.0.1:7444", "127.0.0.1:" + cs.getLocalPort());
      xml = xml.replace("127.0.0.1:7501", "127.0.0.1:" + r1.getLocalPort());
      xml = xml.replace("127.0.0.1:7502", "127.0.0.1:" + r2.getLocalPort());
      xml = xml.replace("127.0.0.1:7600", "127.0.0.1:" + src.getLocalPort());
    }
    xml = xml.replace("directory=\"../target/rosa-pki\"", "directory=\"pki\"");
    xml =
        xml.replace(
            "config=\"crypto-providers.xml\"",
            "config=\""
                + Path.of("..", "config", "crypto-providers.xml").toAbsolutePath().normalize()
                + "\"");
    Path f = dir.resolve("rosa.xml");
    Files.writeString(f, edit.apply(xml));
    return RosaConfig.load(f);
  }

  private static ServerSocket tcp() throws IOException {
    return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  }

  private static DatagramSocket udp() throws IOException {
    return new DatagramSocket(0, InetAddress.getLoopbackAddress());
  }

  /**
   * A session {@code user} is granted for {@code code} on loopback, from a second ago for five
   * minutes, MACed with HMAC-SHA-256-128, payloads in the clear.
   */
  public static SessionGrant loopbackGrant(Domain domain, String user, String code)
      throws Exception {
    long now = System.currentTimeMillis() / 1000;
    return domain
        .source(user)
        .request(
            code,
            "127.0.0.1",
            "127.0.0.1",
            now - 1,
            now + 300,
            MacAlgorithm.HMAC_SHA256_128,
            false);
  }

  /** A session request of {@code user} for code "counter" on loopback, SST to SST + 60. */
  public static SessionRequest request(String user, long sst, boolean encrypt) {
    return new SessionRequest(
        user,
        "counter",
        "127.0.0.1",
        "127.0.0.1",
        sst,
        sst + 60,
        "hmac-sha256-128",
        encrypt,
        System.currentTimeMillis() / 1000,
        "n" + System.nanoTime());
  }
}
