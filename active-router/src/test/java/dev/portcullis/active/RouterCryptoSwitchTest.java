package dev.portcullis.active;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.source.PacketSink;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The routers' verification MAC switched back and forth between PortcullisNative, SunJCE and ACCP
 * while a steady flow of packets crosses two routers: the table file is rewritten and reloaded
 * between packets. Every packet arrives, none is dropped, and each provider verified packets.
 */
@Timeout(120)
class RouterCryptoSwitchTest {
  @TempDir Path dir;

  private static String table(String first, String second) {
    return CryptoConfig.builder()
        .defaults("SunJCE", "SUN")
        .prefer(Algorithm.HMAC_SHA256, first, second)
        .build()
        .toXml();
  }

  @Test
  void switchingTheVerificationMacUnderAFlowLosesNoPacket() throws Exception {
    Path table = dir.resolve("crypto.xml");
    Files.writeString(table, table("PortcullisNative", "SunJCE"));
    var config =
        TestDomain.config(
            dir,
            xml ->
                xml.replaceFirst(
                    "<crypto config=\"[^\"]*\"/>", "<crypto config=\"" + table + "\"/>"));
    Domain domain = new Domain(config, Clock.systemUTC());
    try (var cs = domain.codeServer();
        var as = domain.authServer();
        ActiveRouter ar1 = domain.router("ar-1");
        ActiveRouter ar2 = domain.router("ar-2");
        PacketSink sink = new PacketSink(config.routers().get("ar-2").routes().get(0).nextHop());
        DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
      assertTrue(cs.address().getPort() > 0 && as.address().getPort() > 0, "servers up");
      SessionGrant g = TestDomain.loopbackGrant(domain, "alice", "forward");
      PacketSealer sealer = g.sealer(domain.registry());
      String[][] orders = {
        {"SunJCE", "PortcullisNative"},
        {"ACCP", "SunJCE"},
        {"PortcullisNative", "SunJCE"}
      };
      int sent = 0;
      for (int round = 0; round < 9; round++) {
        for (int i = 0; i < 100; i++, sent++) {
          byte[] p = sealer.seal(("p" + sent).getBytes());
          udp.send(new DatagramPacket(p, p.length, config.routers().get("ar-1").listen()));
          if (i % 10 == 9) {
            // flow control, not a sleep: at most 150 packets on their way through both routers,
            // which every socket buffer on the path keeps however slow the machine
            int delivered = sent + 1 - 150;
            await()
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1))
                .atMost(Duration.ofSeconds(10))
                .until(() -> sink.received() >= delivered);
          }
        }
        String[] o = orders[round % orders.length];
        Files.writeString(table, table(o[0], o[1]));
        domain.registry().reload();
        assertEquals(o[0], domain.registry().providerFor(Algorithm.HMAC_SHA256));
      }
      int expected = sent;
      await().until(() -> sink.received() >= expected);
      assertEquals(
          expected, sink.received(), "ar-1 " + ar1.counters() + ", ar-2 " + ar2.counters());
      for (ActiveRouter r : List.of(ar1, ar2)) {
        assertEquals(0, r.counters().drops(), r.id() + ": " + r.counters());
        assertTrue(r.counters().get(Outcome.ACCEPTED) >= expected, r.id() + ": " + r.counters());
      }
      Map<String, Long> served = domain.registry().status().operations().get(Algorithm.HMAC_SHA256);
      for (String p : List.of("PortcullisNative", "SunJCE", "ACCP")) {
        assertTrue(served.getOrDefault(p, 0L) > 0, "MACs by provider: " + served);
      }
      sealer.destroy();
    } finally {
      domain.registry().close();
    }
  }
}
