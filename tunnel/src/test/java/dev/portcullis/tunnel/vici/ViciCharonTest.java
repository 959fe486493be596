package dev.portcullis.tunnel.vici;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.portcullis.tunnel.lab.CharonProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client against a real charon (strongSwan 5.9): what the scripted daemon of {@link
 * ViciClientTest} answers, charon answers the same way. Skips with one line where charon cannot run
 * (not installed, not root).
 */
@Timeout(60)
class ViciCharonTest {
  @TempDir static Path dir;
  static CharonProcess charon;

  @BeforeAll
  static void start() throws Exception {
    String why = CharonProcess.unavailable();
    assumeTrue(why == null, why);
    charon = CharonProcess.start(dir, List.of(), false);
  }

  @AfterAll
  static void stop() throws Exception {
    if (charon != null) {
      charon.close();
    }
  }

  static ViciMessage conn(String proposal) {
    ViciMessage id = ViciMessage.builder().put("auth", "psk").put("id", "alice@vpn.lab").build();
    return ViciMessage.builder()
        .put("version", "2")
        .list("local_addrs", List.of("192.0.2.1"))
        .list("remote_addrs", List.of("192.0.2.2"))
        .section("local", id)
        .section("remote", ViciMessage.builder().put("auth", "psk").put("id", "gw.lab").build())
        .section(
            "children",
            ViciMessage.builder()
                .section(
                    "net",
                    ViciMessage.builder()
                        .list("local_ts", List.of("10.1.0.0/16"))
                        .list("remote_ts", List.of("10.2.0.0/16"))
                        .list("esp_proposals", List.of(proposal))
                        .build())
                .build())
        .build();
  }

  @Test
  void charonAnswersLoadsRefusesAndStreams() throws Exception {
    try (ViciClient c = ViciClient.connect(charon.socket(), Duration.ofSeconds(10))) {
      ViciMessage v = c.await(c.version());
      assertEquals("charon", v.text("daemon"));
      assertTrue(v.text("version").startsWith("5."), v.toString());

      byte[] psk = new byte[32];
      new java.security.SecureRandom().nextBytes(psk);
      assertEquals(
          "yes",
          c.await(c.loadShared("tun-1", "IKE", psk, List.of("alice@vpn.lab", "gw.lab")))
              .text("success"));
      java.util.Arrays.fill(psk, (byte) 0);
      assertEquals("yes", c.await(c.loadConn("tun-1", conn("aes128gcm16"))).text("success"));

      ViciCommandException bad =
          assertThrows(
              ViciCommandException.class, () -> c.await(c.loadConn("tun-2", conn("bogus-cipher"))));
      assertEquals("load-conn", bad.command());
      assertTrue(bad.reason().contains("tun-2") || bad.reason().contains("proposal"), bad.reason());

      assertEquals(List.of(), c.listSas(null), "nothing initiated: no SA");
      assertEquals("yes", c.await(c.unloadConn("tun-1")).text("success"));
      ViciCommandException gone =
          assertThrows(ViciCommandException.class, () -> c.await(c.unloadConn("tun-1")));
      assertTrue(gone.reason().contains("tun-1"), gone.reason());
      assertEquals("yes", c.await(c.unloadShared("tun-1")).text("success"));

      ViciCommandException unknown =
          assertThrows(
              ViciCommandException.class,
              () -> c.await(c.command("reload-everything", ViciMessage.EMPTY)));
      assertEquals("unknown command", unknown.reason());
      AutoCloseable updown = c.await(c.subscribe("ike-updown", m -> {}));
      updown.close();
      assertThrows(ViciCommandException.class, () -> c.await(c.subscribe("ike-wobble", m -> {})));
      assertEquals("charon", c.await(c.version()).text("daemon"), "the connection still in step");
    }
  }
}
