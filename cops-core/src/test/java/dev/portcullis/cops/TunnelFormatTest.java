package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelGrant;
import dev.portcullis.cops.access.TunnelReport;
import dev.portcullis.cops.access.TunnelRequest;
import java.net.InetAddress;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The tunnel client type (0xC0A8), against the two examples of docs/cops-wire.md. */
class TunnelFormatTest {
  static final byte[] KEY =
      HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

  static TunnelRequest docRequest() throws Exception {
    Map<String, byte[]> ex = DocsExamplesTest.examples();
    Request r = (Request) CopsCodec.decode(ex.get("tunnel REQ"));
    assertEquals(TunnelRequest.CLIENT_TYPE, r.clientType());
    return TunnelRequest.decode(r.clientSIs().get(0).data());
  }

  static TunnelGrant docGrant() throws Exception {
    Decision d = (Decision) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel DEC"));
    return TunnelGrant.decode(d.decisions().get(0).clientSpecific().data());
  }

  @Test
  void theRequestOfTheDocsIsAlicesClientAgentAsking() throws Exception {
    TunnelRequest t = docRequest();
    assertEquals(
        TunnelRequest.client(
            "alice",
            "gw-1",
            InetAddress.getByName("192.0.2.1"),
            TrafficSelector.parse("10.1.0.1/32"),
            TunnelRequest.Objective.CONFIDENTIALITY,
            "alice@vpn.lab",
            "otc-1a2b"),
        t);
    Request r = (Request) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel REQ"));
    assertEquals(r.clientSIs().get(0).data(), t.encode(), "re-encoded byte for byte");
    TunnelRequest gw =
        TunnelRequest.gateway("gw-1", InetAddress.getByName("192.0.2.2"), "gw-1.lab");
    assertEquals(gw, TunnelRequest.decode(gw.encode()));
  }

  @Test
  void theGrantOfTheDocsCarriesTheTunnelAndItsKeyHidden() throws Exception {
    TunnelGrant g = docGrant();
    assertTrue(g.complete());
    assertEquals("t-7f3a", g.tunnelId());
    assertEquals("10.2.0.0/16", g.remoteTs().toString());
    assertEquals(3600L, g.lifetimeSeconds());
    assertArrayEquals(KEY, g.psk());
    assertFalse(g.toString().contains("0001020304"), g.toString());
    assertTrue(g.toString().contains("key (hidden)"));
    Decision d = (Decision) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel DEC"));
    assertEquals(d.decisions().get(0).clientSpecific().data(), g.encode(), "byte for byte");
    TunnelGrant gw = g.mirrored();
    assertEquals("gw-1.lab", gw.localId());
    assertEquals("10.1.0.1/32", gw.remoteTs().toString());
    assertArrayEquals(KEY, gw.psk(), "the same key at the other end");
    g.zero();
    assertArrayEquals(new byte[32], g.psk(), "zeroed");
    TunnelGrant removal = TunnelGrant.removal("t-7f3a", "alice logged out");
    assertFalse(removal.complete());
    assertEquals(removal, TunnelGrant.decode(removal.encode()));
    assertNull(TunnelGrant.decode(removal.encode()).psk());
    TunnelGrant refusal = TunnelGrant.refusal("no rule allows mallory a tunnel to gw-1");
    assertEquals(refusal, TunnelGrant.decode(refusal.encode()));
    assertNull(TunnelGrant.decode(refusal.encode()).tunnelId());
    assertFalse(refusal.complete());
  }

  @Test
  void theReportOfTheDocsIsAnEndedTunnelsAccounting() throws Exception {
    Report r = (Report) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel RPT"));
    assertEquals(ReportType.ACCOUNTING, r.reportType().reportType());
    TunnelReport t = TunnelReport.decode(r.clientSI().data());
    assertEquals(TunnelReport.down("t-7f3a", 1 << 20, 1 << 19, 1024, 512, 600, "revoked"), t);
    assertEquals(TunnelReport.State.DOWN.reportType(), r.reportType().reportType());
    assertEquals(r.clientSI().data(), t.encode(), "re-encoded byte for byte");
    TunnelReport up = TunnelReport.up("t-1");
    assertEquals(up, TunnelReport.decode(up.encode()));
    CopsCodecException big =
        assertThrows(
            CopsCodecException.class,
            () ->
                TunnelReport.decode(
                    block(
                        "0001000274310000" + "0002000101000000" + "00030008ff00000000000000", 3)));
    assertTrue(big.getMessage().contains("bytes in"), big.getMessage());
    CopsCodecException state =
        assertThrows(
            CopsCodecException.class,
            () -> TunnelReport.decode(block("0001000274310000" + "0002000107000000", 2)));
    assertTrue(state.getMessage().contains("tunnel state: 7"), state.getMessage());
  }

  static Bytes block(String attributes, int count) {
    return Bytes.of(HexFormat.of().parseHex("0100" + String.format("%04x", count) + attributes));
  }

  @Test
  void badAttributesAreRefusedWithTheirOffset() {
    String[][] grants = {
      {"0001000274310000" + "000c000100000000", "2", "attribute type: 12 at offset 12"},
      {"0001000274310000" + "0001000274310000", "2", "repeated"},
      {"000900087465737474657374", "1", "pre-shared key length: 8"},
      {"000a000400000000" + "0001000274310000", "2", "lifetime: 0"},
      {"0008000109000000" + "0001000274310000", "2", "protection objective: 9"},
      {"000a000400000e10", "1", "tunnel id: absent"},
      {"0001000274310000" + "000600050a01000118000000", "2", "host bits set"},
      {"0001000274310000" + "000600050a01000021000000", "2", "prefix length: 33"},
    };
    for (String[] c : grants) {
      CopsCodecException e =
          assertThrows(
              CopsCodecException.class,
              () -> TunnelGrant.decode(block(c[0], Integer.parseInt(c[1]))),
              c[2]);
      assertTrue(e.getMessage().contains(c[2]), c[2] + ": " + e.getMessage());
    }
    CopsCodecException role =
        assertThrows(
            CopsCodecException.class, () -> TunnelRequest.decode(block("0001000103000000", 1)));
    assertTrue(role.getMessage().contains("role: 3"), role.getMessage());
    CopsCodecException client =
        assertThrows(
            CopsCodecException.class,
            () ->
                TunnelRequest.decode(
                    block(
                        "0001000101000000"
                            + "000300026777"
                            + "0000"
                            + "00040004c0000201"
                            + "000700016100"
                            + "0000",
                        4)));
    assertTrue(client.getMessage().contains("subject: absent"), client.getMessage());
    assertThrows(IllegalArgumentException.class, () -> TrafficSelector.parse("10.1.0.1/24"));
    assertThrows(IllegalArgumentException.class, () -> TrafficSelector.parse("gw.lab/24"));
  }

  @Test
  void prefixesContainAndOverlapBitByBit() {
    TrafficSelector net = TrafficSelector.parse("10.1.0.0/16");
    assertTrue(net.contains(TrafficSelector.parse("10.1.0.1/32")));
    assertTrue(net.contains(net));
    assertFalse(net.contains(TrafficSelector.parse("0.0.0.0/0")), "wider is never within");
    assertFalse(net.contains(TrafficSelector.parse("10.0.0.0/8")));
    assertFalse(net.contains(TrafficSelector.parse("10.2.0.1/32")));
    assertFalse(net.contains(TrafficSelector.parse("::1/128")), "another family");
    assertTrue(net.overlaps(TrafficSelector.parse("0.0.0.0/0")));
    assertTrue(TrafficSelector.parse("10.1.2.3/32").overlaps(net));
    assertFalse(net.overlaps(TrafficSelector.parse("10.2.0.0/16")));
    assertFalse(
        TrafficSelector.parse("10.1.0.1/32").overlaps(TrafficSelector.parse("10.1.0.2/32")));
  }

  @Test
  void theTypesWithFormatsOfTheirOwnDoNotCarryTheAccessDecision() {
    assertTrue(dev.portcullis.cops.access.AccessDecision.carriedBy(0xC0A5));
    assertTrue(dev.portcullis.cops.access.AccessDecision.carriedBy(0xC0A6));
    assertFalse(dev.portcullis.cops.access.AccessDecision.carriedBy(0xC0A7), "enrolment");
    assertFalse(dev.portcullis.cops.access.AccessDecision.carriedBy(TunnelRequest.CLIENT_TYPE));
  }
}
