package dev.portcullis.tunnel;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.tunnel.lab.LabCapture;
import dev.portcullis.tunnel.lab.NetworkLab;
import dev.portcullis.tunnel.vici.ViciClient;
import dev.portcullis.tunnel.vici.ViciMessage;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real tunnels in the network lab: two namespaces, a charon in each, a connection loaded at both
 * ends over VICI with a fresh 256-bit PSK, initiated from one; pings cross between the inner
 * addresses while a capture on the veth sees only ESP (in UDP); with ESP-NULL the payload is
 * visible in the capture, with AES-GCM it is not; terminated and unloaded, no SA is left at either
 * end and nothing crosses. Skips with one line where the lab cannot run.
 */
@Timeout(120)
// disabled, not aborted, where the lab cannot run: reported as skipped, with why on stderr (an
// assumption in @BeforeAll made the class vanish from the counts: "Tests run: 0, Skipped: 0")
@EnabledIf("labRunsHere")
class TunnelLabTest {
  static boolean labRunsHere() {
    String why = NetworkLab.unavailable("tcpdump", "ping");
    if (why != null) {
      System.err.println("TunnelLabTest skipped: " + why);
    }
    return why == null;
  }

  /** What the pings carry, to be looked for in the capture: "portcu". */
  static final String PATTERN = "706f72746375";

  @TempDir static Path dir;
  static NetworkLab lab;
  static ViciClient atA;
  static ViciClient atB;

  @BeforeAll
  static void up() throws Exception {
    lab = NetworkLab.create(dir);
    atA = ViciClient.connect(lab.startCharon(lab.a()), Duration.ofSeconds(15));
    atB = ViciClient.connect(lab.startCharon(lab.b()), Duration.ofSeconds(15));
  }

  @AfterAll
  static void down() {
    if (atA != null) {
      atA.close();
    }
    if (atB != null) {
      atB.close();
    }
    if (lab != null) {
      lab.close();
    }
  }

  static TunnelConnection tunnel(String name, ProtectionObjective objective) {
    NetworkLab.Side a = lab.a();
    NetworkLab.Side b = lab.b();
    return new TunnelConnection(
        name,
        a.outer(),
        b.outer(),
        name + "@a.lab",
        name + "@b.lab",
        a.inner() + "/32",
        b.inner() + "/32",
        objective,
        Duration.ofHours(1));
  }

  /** Loads the tunnel at both ends with one fresh PSK, zeroed once charon has it. */
  static void load(TunnelConnection t) throws Exception {
    byte[] psk = new byte[32];
    new SecureRandom().nextBytes(psk);
    try {
      for (ViciClient c : List.of(atA, atB)) {
        c.await(c.loadShared(t.name(), "IKE", psk, List.of(t.localId(), t.remoteId())));
      }
    } finally {
      Arrays.fill(psk, (byte) 0);
    }
    atA.await(atA.loadConn(t.name(), t.toVici()));
    atB.await(atB.loadConn(t.name(), t.mirrored().toVici()));
  }

  static void unload(TunnelConnection t) throws Exception {
    atA.await(atA.terminateIke(t.name(), Duration.ofSeconds(5)));
    for (ViciClient c : List.of(atA, atB)) {
      c.await(c.unloadConn(t.name()));
      c.await(c.unloadShared(t.name()));
    }
  }

  /** Pings b's inner address from a's, 3 times, capturing what crosses the veth at b. */
  static LabCapture pingAndCapture() throws Exception {
    return LabCapture.pingAcross(lab, dir, lab.a().inner(), lab.b().inner(), PATTERN);
  }

  static void installedAtBothEnds(TunnelConnection t) throws Exception {
    for (ViciClient c : List.of(atA, atB)) {
      List<ViciMessage> sas = c.listSas(t.name());
      assertEquals(1, sas.size(), "one IKE_SA: " + sas);
      ViciMessage ike = sas.get(0).section(t.name());
      assertEquals("ESTABLISHED", ike.text("state"), ike.toString());
      ViciMessage child = ike.section("child-sas").section(ike.section("child-sas").keys().get(0));
      assertEquals("INSTALLED", child.text("state"), child.toString());
      // a tunnel lives its granted lifetime and is never rekeyed: no rekey time, not a past one
      // (swanctl showed "rekeying in -28102s" while the jitter was subtracted from 0; issue 47)
      String rekey = child.text("rekey-time");
      assertTrue(rekey == null || Long.parseLong(rekey) >= 0, "rekey-time " + rekey);
    }
  }

  static void goneAtBothEnds(TunnelConnection t) throws Exception {
    for (ViciClient c : List.of(atA, atB)) {
      // the responder learns of the delete a round trip later
      await().until(() -> c.listSas(t.name()).isEmpty());
      assertEquals(List.of(), c.listSas(t.name()), "no SA left");
    }
    IOException e = assertThrows(IOException.class, TunnelLabTest::pingAndCapture);
    assertTrue(e.getMessage().contains("ping"), e.getMessage());
  }

  /**
   * What crossed the veth: ESP in UDP, and IKE (its informational exchanges share port 4500); never
   * the pings themselves.
   */
  static List<String> espOnly(LabCapture c) {
    assertEquals(List.of(), c.other(), "only ESP and IKE cross, nothing in clear");
    assertTrue(c.esp().size() >= 2, "the pings crossed as ESP: " + c);
    return c.esp();
  }

  /** Up, used, checked by {@code check}, and unloaded at both ends whatever happened. */
  static void withTunnel(TunnelConnection t, java.util.function.Consumer<List<String>> check)
      throws Exception {
    load(t);
    try {
      ViciMessage up =
          atA.await(atA.initiate(TunnelConnection.CHILD, t.name(), Duration.ofSeconds(10)));
      assertEquals("yes", up.text("success"));
      installedAtBothEnds(t);
      check.accept(espOnly(pingAndCapture()));
    } finally {
      unload(t);
    }
    goneAtBothEnds(t);
  }

  @Test
  void confidentialityIsEspWithAesGcmAndNothingCrossesInClear() throws Exception {
    withTunnel(
        tunnel("conf-1", ProtectionObjective.CONFIDENTIALITY),
        esp -> {
          for (String p : esp) {
            assertFalse(p.contains(PATTERN), "the payload is encrypted: " + p);
          }
        });
  }

  @Test
  void integrityIsEspNullAndThePayloadIsVisible() throws Exception {
    withTunnel(
        tunnel("integ-1", ProtectionObjective.INTEGRITY),
        esp ->
            assertTrue(
                esp.stream().anyMatch(p -> p.contains(PATTERN)),
                "ESP-NULL protects integrity, not confidentiality: the payload shows"));
  }

  @Test
  void aClientGivenItsAddressByTheGatewaySendsFromItAndFromNothingElse() throws Exception {
    NetworkLab.Side a = lab.a();
    NetworkLab.Side b = lab.b();
    String vip = "10.9.0.7";
    TunnelConnection gw =
        new TunnelConnection(
            "vip-1",
            b.outer(),
            a.outer(),
            "vip-1@b.lab",
            "vip-1@a.lab",
            b.inner() + "/32",
            vip + "/32",
            ProtectionObjective.CONFIDENTIALITY,
            Duration.ofHours(1),
            new TunnelConnection.VirtualIp(vip, false));
    TunnelConnection client = gw.mirrored();
    assertTrue(client.virtualIp().received());
    assertEquals(null, client.pool(), "a client hands out nothing");
    byte[] psk = new byte[32];
    new SecureRandom().nextBytes(psk);
    try {
      for (ViciClient c : List.of(atA, atB)) {
        c.await(c.loadShared("vip-1", "IKE", psk, List.of(gw.localId(), gw.remoteId())));
      }
    } finally {
      Arrays.fill(psk, (byte) 0);
    }
    atB.await(atB.loadPool(gw.pool()));
    atB.await(atB.loadConn("vip-1", gw.toVici()));
    atA.await(atA.loadConn("vip-1", client.toVici()));
    try {
      ViciMessage up =
          atA.await(atA.initiate(TunnelConnection.CHILD, "vip-1", Duration.ofSeconds(10)));
      assertEquals("yes", up.text("success"));
      ViciMessage ike = atA.listSas("vip-1").get(0).section("vip-1");
      assertEquals(List.of(vip), ike.list("local-vips"), ike.toString());
      ViciMessage child = ike.section("child-sas").section(ike.section("child-sas").keys().get(0));
      assertEquals(List.of(vip + "/32"), child.list("local-ts"), child.toString());
      espOnly(LabCapture.pingAcross(lab, dir, vip, b.inner(), PATTERN));
      // a's own inner address is not the one it was given: nothing from it crosses
      assertThrows(IOException.class, TunnelLabTest::pingAndCapture);
    } finally {
      atA.await(atA.terminateIke("vip-1", Duration.ofSeconds(5)));
      for (ViciClient c : List.of(atA, atB)) {
        c.await(c.unloadConn("vip-1"));
        c.await(c.unloadShared("vip-1"));
      }
      await().until(() -> atB.listSas("vip-1").isEmpty());
      atB.await(atB.unloadPool("vip-1"));
    }
  }
}
