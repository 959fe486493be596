package dev.portcullis.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.tunnel.vici.ViciMessage;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The protection objectives' mapping to ESP, and the connection charon is given for one. */
class ProtectionObjectiveTest {
  static TunnelConnection tunnel(ProtectionObjective o) {
    return new TunnelConnection(
        "t-1",
        "192.0.2.1",
        "192.0.2.2",
        "t-1@a",
        "t-1@b",
        "10.1.0.1/32",
        "10.2.0.1/32",
        o,
        Duration.ofMinutes(30));
  }

  @Test
  void eachObjectiveHasItsEspOrItsReason() {
    assertEquals(List.of("null-sha256"), ProtectionObjective.INTEGRITY.espProposals());
    assertEquals(
        List.of("aes256gcm16", "aes128gcm16"), ProtectionObjective.CONFIDENTIALITY.espProposals());
    IllegalStateException ahEsp =
        assertThrows(IllegalStateException.class, () -> tunnel(ProtectionObjective.AH_AND_ESP));
    assertTrue(ahEsp.getMessage().contains("one IPsec protocol per CHILD_SA"), ahEsp.getMessage());
    assertThrows(IllegalStateException.class, () -> tunnel(ProtectionObjective.NONE));
    assertEquals(ProtectionObjective.AH_AND_ESP, ProtectionObjective.of(" AH+ESP "));
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> ProtectionObjective.of("secret"));
    assertTrue(bad.getMessage().contains("expected: none, integrity, confidentiality, ah+esp"));
  }

  @Test
  void theConnectionIsWhatLoadConnTakesAndItsMirrorTheOtherEnd() {
    TunnelConnection t = tunnel(ProtectionObjective.CONFIDENTIALITY);
    ViciMessage c = t.toVici();
    assertEquals(List.of("192.0.2.1"), c.list("local_addrs"));
    assertEquals("yes", c.text("encap"), "ESP in UDP: userspace ESP needs it");
    assertEquals("t-1@a", c.section("local").text("id"));
    ViciMessage child = c.section("children").section(TunnelConnection.CHILD);
    assertEquals(List.of("aes256gcm16", "aes128gcm16"), child.list("esp_proposals"));
    assertEquals("1800", child.text("life_time"));
    ViciMessage m = t.mirrored().toVici();
    assertEquals(List.of("192.0.2.2"), m.list("local_addrs"));
    assertEquals("t-1@b", m.section("local").text("id"));
    assertEquals(
        List.of("10.2.0.1/32"),
        m.section("children").section(TunnelConnection.CHILD).list("local_ts"));
  }
}
