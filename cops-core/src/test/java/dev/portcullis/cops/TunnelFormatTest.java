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
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
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
                "otc-1a2b")
            .withPublicKeys(List.of(ALICES_KEY)),
        t);
    Request r = (Request) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel REQ"));
    assertEquals(r.clientSIs().get(0).data(), t.encode(), "re-encoded byte for byte");
    TunnelRequest gw =
        TunnelRequest.gateway("gw-1", InetAddress.getByName("192.0.2.2"), "gw-1.lab");
    assertEquals(gw, TunnelRequest.decode(gw.encode()));
  }

  /** RFC 8032's second test key, as a SubjectPublicKeyInfo (RFC 8410). */
  static final Bytes ALICES_KEY =
      Bytes.of(
          HexFormat.of()
              .parseHex(
                  "302a300506032b6570032100"
                      + "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"));

  @Test
  void theRequestOfTheDocsCarriesAlicesPublicKeyAndAGatewaysCarriesSeveral() throws Exception {
    assertEquals(List.of(ALICES_KEY), docRequest().publicKeys());
    TunnelRequest gw =
        TunnelRequest.gateway("gw-1", InetAddress.getByName("192.0.2.2"), "gw-1.lab")
            .withPublicKeys(List.of(ALICES_KEY, Bytes.of(new byte[] {1, 2, 3})));
    assertEquals(gw, TunnelRequest.decode(gw.encode()));
    assertEquals(2, TunnelRequest.decode(gw.encode()).publicKeys().size());
    assertTrue(keysRefused("0009000101000000" + "0009000102000000", 2).contains("at most 1"));
    assertTrue(keysRefused("00090000", 1).contains("public key: empty"));
    TunnelReport fresh = TunnelReport.up("t-7f3a").withPublicKey(ALICES_KEY);
    assertEquals(fresh, TunnelReport.decode(fresh.encode()));
  }

  /** Why alice's request without its key, with {@code n} attributes {@code more}, is refused. */
  static String keysRefused(String more, int n) throws Exception {
    byte[] bare = docRequest().withPublicKeys(List.of()).encode().toArray();
    return assertThrows(
            CopsCodecException.class, () -> TunnelRequest.decode(Bytes.of(concat(bare, more, n))))
        .getMessage();
  }

  /** {@code block} (a whole attribute block) with {@code more} attributes ({@code n}) appended. */
  static byte[] concat(byte[] block, String more, int n) {
    byte[] extra = HexFormat.of().parseHex(more);
    byte[] out = java.util.Arrays.copyOf(block, block.length + extra.length);
    System.arraycopy(extra, 0, out, block.length, extra.length);
    int count = ((out[2] & 0xff) << 8 | (out[3] & 0xff)) + n;
    out[2] = (byte) (count >> 8);
    out[3] = (byte) count;
    return out;
  }

  @Test
  void theCertificateGrantOfTheDocsCertifiesAlicesKeyForThisTunnelAlone() throws Exception {
    Decision d =
        (Decision) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel DEC certificates"));
    TunnelGrant g = TunnelGrant.decode(d.decisions().get(0).clientSpecific().data());
    assertTrue(g.complete());
    assertTrue(g.certified());
    assertNull(g.psk());
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    X509Certificate ca = cert(x509, g.authority());
    X509Certificate own = cert(x509, g.certificate());
    X509Certificate peer = cert(x509, g.peerCertificate());
    own.verify(ca.getPublicKey());
    peer.verify(ca.getPublicKey());
    assertEquals(ALICES_KEY, Bytes.of(own.getPublicKey().getEncoded()), "the request's key");
    assertEquals("CN=alice,OU=t-7f3a,O=Portcullis tunnel", own.getSubjectX500Principal().getName());
    assertEquals(
        List.of(List.of(1, "alice@vpn.lab")), List.copyOf(own.getSubjectAlternativeNames()));
    assertEquals(List.of(List.of(2, "gw-1.lab")), List.copyOf(peer.getSubjectAlternativeNames()));
    assertEquals(
        3600,
        java.time.Duration.between(
                own.getNotBefore().toInstant().plus(java.time.Duration.ofMinutes(5)),
                own.getNotAfter().toInstant())
            .toSeconds(),
        "valid for the tunnel's lifetime (and the 5 minutes of clock skew before it)");
    TunnelGrant gw = g.mirrored();
    assertEquals(g.peerCertificate(), gw.certificate());
    assertEquals(g.certificate(), gw.peerCertificate());
    assertEquals(g.authority(), gw.authority());
    assertTrue(g.toString().contains("certificates"), g.toString());
  }

  @Test
  void theStartOfTheDocsTellsAHeldClientToInitiate() throws Exception {
    Decision d = (Decision) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel DEC start"));
    assertFalse(d.solicited());
    TunnelGrant start = TunnelGrant.decode(d.decisions().get(0).clientSpecific().data());
    assertEquals(TunnelGrant.start("t-7f3a"), start);
    assertTrue(start.isStart());
    assertFalse(start.complete(), "nothing to install: it starts what the client holds");
    TunnelGrant held = docGrant().withStart(false);
    assertFalse(held.startsNow());
    assertFalse(held.isStart());
    assertEquals(held, TunnelGrant.decode(held.encode()));
    assertTrue(docGrant().startsNow(), "an Install without START initiates at once");
    CopsCodecException bad =
        assertThrows(
            CopsCodecException.class,
            () -> TunnelGrant.decode(block("0001000274310000" + "000f000102000000", 2)));
    assertTrue(bad.getMessage().contains("start: 2"), bad.getMessage());
  }

  @Test
  void theVirtualIpGrantOfTheDocsHandsAlicesAddressOutAtTheGateway() throws Exception {
    Decision d =
        (Decision) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel DEC virtual IP"));
    TunnelGrant g = TunnelGrant.decode(d.decisions().get(0).clientSpecific().data());
    assertTrue(g.complete());
    assertEquals(TunnelGrant.VirtualIp.RECEIVED, g.virtualIp());
    assertEquals("10.8.0.2/32", g.localTs().toString());
    assertEquals(d.decisions().get(0).clientSpecific().data(), g.encode(), "byte for byte");
    TunnelGrant gw = g.mirrored();
    assertEquals(TunnelGrant.VirtualIp.HANDED_OUT, gw.virtualIp());
    assertEquals("10.8.0.2/32", gw.remoteTs().toString(), "the gateway hands out this address");
    assertEquals(gw, TunnelGrant.decode(gw.encode()));
    assertEquals(g.virtualIp(), gw.mirrored().virtualIp());
    assertTrue(g.toString().contains("virtual IP received"), g.toString());
    TunnelGrant plain = docGrant();
    assertNull(plain.virtualIp(), "no VIRTUAL_IP: the client sends from its inner prefix");
    // (a client's selector of more than one address: badAttributesAreRefusedWithTheirOffset)
    // a request asking the gateway for an address names no inner prefix
    TunnelRequest asks =
        TunnelRequest.client(
            "alice",
            "gw-1",
            InetAddress.getByName("192.0.2.1"),
            null,
            TunnelRequest.Objective.CONFIDENTIALITY,
            "alice@vpn.lab",
            null);
    assertEquals(asks, TunnelRequest.decode(asks.encode()));
    assertNull(TunnelRequest.decode(asks.encode()).innerPrefix());
  }

  static X509Certificate cert(CertificateFactory f, Bytes der) throws Exception {
    return (X509Certificate) f.generateCertificate(new java.io.ByteArrayInputStream(der.toArray()));
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
    Report live =
        (Report) CopsCodec.decode(DocsExamplesTest.examples().get("tunnel RPT accounting"));
    assertEquals(ReportType.ACCOUNTING, live.reportType().reportType());
    TunnelReport counted = TunnelReport.decode(live.clientSI().data());
    assertEquals(TunnelReport.accounting("t-7f3a", 1 << 20, 1 << 19, 1024, 512, 600), counted);
    assertEquals(TunnelReport.State.ACCOUNTING.reportType(), live.reportType().reportType());
    assertEquals(live.clientSI().data(), counted.encode(), "re-encoded byte for byte");
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
      {"0001000274310000" + "0011000100000000", "2", "attribute type: 17 at offset 12"},
      {"0001000274310000" + "0010000103000000", "2", "virtual IP: 3"},
      {
        "0001000274310000" + "000600050a08000018000000" + "0010000101000000",
        "3",
        "virtual IP's local traffic selector: 10.8.0.0/24"
      },
      {
        "0001000274310000" + "000700050a08000018000000" + "0010000102000000",
        "3",
        "virtual IP's remote traffic selector: 10.8.0.0/24"
      },
      {"0001000274310000" + "000c000100000000", "2", "certificates: not all three"},
      {"0001000274310000" + "000c0000", "2", "certificate length: 0"},
      {
        "0001000274310000"
            + "00090010"
            + "000102030405060708090a0b0c0d0e0f"
            + "000c000100000000"
            + "000d000100000000"
            + "000e000100000000",
        "5",
        "keying: a pre-shared key and certificates"
      },
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
