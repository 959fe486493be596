package dev.portcullis.pep;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.ManualClock;
import dev.portcullis.support.XmlConfigReader;
import dev.portcullis.support.pki.DevCertificates;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** COPS over TLS (RFC 4261) between the real PDP and PEP over loopback. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SecureCopsTest {
  @TempDir Path dir;

  static String tlsPdp(TlsEngine engine, String tlsExtra, String rest) {
    return "<security><tls engine=\""
        + engine.configName()
        + "\" dev-pki=\"pki\" "
        + tlsExtra
        + "/>"
        + rest
        + "<protection pep=\"*\" level=\"confidentiality\"/></security>";
  }

  /**
   * The PDP's protocols for a test of resumption: BCJSSE 1.84 has no TLS 1.3 resumption (no
   * resumption PSKs, bc-java issue 946; docs/tls.md), it does resume TLS 1.2. Conscrypt resumes TLS
   * 1.3 since its server side issues tickets (it did not before, and this test ran it on 1.2).
   */
  static String resumable(TlsEngine engine) {
    return engine == TlsEngine.BOUNCY_CASTLE ? "protocols=\"TLSv1.2\"" : "";
  }

  PepSecurity pepTls(TlsEngine engine, String certificateOf, PepSecurity.SessionReuse reuse)
      throws Exception {
    return pepTls(engine, certificateOf, reuse, true, List.of());
  }

  PepSecurity pepTls(
      TlsEngine engine,
      String certificateOf,
      PepSecurity.SessionReuse reuse,
      boolean initiate,
      List<String> authorised)
      throws Exception {
    Path pki = dir.resolve("pki");
    DevCertificates.Pki p = DevCertificates.ensure(pki, List.of(), List.of(certificateOf));
    DevCertificates.Credential c = p.peps().get(certificateOf);
    return new PepSecurity(
        TlsSettings.development(engine, pki),
        initiate,
        c.certificateChain(),
        c.privateKey(),
        p.caCertificate(),
        authorised,
        reuse,
        null);
  }

  static PepClient pep(PdpServer s, String id, PepSecurity security, PepListener l) {
    return PepClient.builder()
        .pdp(s.address())
        .pepId(id)
        .clientType(AccessRequest.CLIENT_TYPE)
        .security(security)
        .listener(l)
        .requestTimeout(Duration.ofSeconds(5))
        .reconnect(Duration.ofMillis(50), Duration.ofMillis(500))
        .build();
  }

  static PepException refusal(CompletableFuture<?> f) throws Exception {
    try {
      f.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertTrue(e.getCause() instanceof PepException, e.getCause().toString());
      return (PepException) e.getCause();
    }
    throw new AssertionError("expected a refusal");
  }

  static List<com.fasterxml.jackson.databind.JsonNode> audit(Path file) throws Exception {
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    List<com.fasterxml.jackson.databind.JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      out.add(json.readTree(line));
    }
    return out;
  }

  @ParameterizedTest
  @EnumSource(TlsEngine.class)
  void mutuallyAuthenticatedSessionsOnEveryEngineAndResumptionOnReconnect(TlsEngine engine)
      throws Exception {
    List<String> kinds = new ArrayList<>();
    PepListener l =
        new PepListener() {
          @Override
          public void tlsEstablished(CopsTls.Handshake h) {
            kinds.add(h.kind());
          }
        };
    try (PdpServer s = Pdps.start(dir, tlsPdp(engine, resumable(engine), ""));
        PepClient pep =
            pep(s, "gw-1", pepTls(engine, "gw-1", PepSecurity.SessionReuse.DEFAULT), l)) {
      PdpPepIntegrationTest.await(pep.open());
      assertTrue(
          PdpPepIntegrationTest.await(
                  pep.request("h1", PdpPepIntegrationTest.CTX, PdpPepIntegrationTest.ssh("alice")))
              .granted());
      for (int i = 0; i < 2; i++) {
        PdpPepIntegrationTest.await(pep.reconnect());
        assertTrue(
            PdpPepIntegrationTest.await(
                    pep.request(
                        "h" + (i + 2),
                        PdpPepIntegrationTest.CTX,
                        PdpPepIntegrationTest.ssh("alice")))
                .granted());
      }
      // The reconnects resumed the session: no certificate was verified on either side.
      assertEquals(
          List.of("full", "resumed", "resumed"),
          kinds,
          engine.name() + "; PDP: " + s.stats().summary());
      assertEquals(1, pep.fullHandshakes());
      assertEquals(2, pep.resumedHandshakes());
      assertEquals(1, s.stats().fullHandshakes(), s.stats().summary());
      assertEquals(2, s.stats().resumedHandshakes(), s.stats().summary());
    }
    List<com.fasterxml.jackson.databind.JsonNode> records = audit(dir.resolve("audit.jsonl"));
    List<String> handshakes = new ArrayList<>();
    for (var r : records) {
      if (r.path("event").asText().equals("decision")) {
        assertTrue(r.has("tlsSession"), r.toString());
        assertTrue(r.path("tlsHandshake").asText().matches("full|resumed"), r.toString());
      }
      if (r.path("event").asText().equals("tls-established")) {
        handshakes.add(r.path("tlsHandshake").asText());
        assertTrue(r.path("peerCertificate").asText().startsWith("CN=gw-1,"), r.toString());
      }
    }
    assertEquals(List.of("full", "resumed", "resumed"), handshakes);
    assertTrue(AuditChain.verify(dir.resolve("audit.jsonl")).intact());
  }

  @ParameterizedTest
  @EnumSource(TlsEngine.class)
  void theReusePolicyBoundsHowOftenASessionIsResumed(TlsEngine engine) throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(engine, resumable(engine), ""));
        PepClient pep =
            pep(
                s,
                "gw-1",
                pepTls(engine, "gw-1", new PepSecurity.SessionReuse(Duration.ofHours(1), 1)),
                new PepListener() {})) {
      PdpPepIntegrationTest.await(pep.open());
      for (int i = 0; i < 3; i++) {
        PdpPepIntegrationTest.await(pep.reconnect());
      }
      // full, resumed (1 use), full (spent), resumed
      assertEquals(2, pep.fullHandshakes());
      assertEquals(2, pep.resumedHandshakes());
    }
  }

  @Test
  void aSessionOlderThanItsMaxAgeIsNotResumed() throws Exception {
    TlsEngine engine = TlsEngine.JDK;
    java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();
    try (PdpServer s = Pdps.start(dir, tlsPdp(engine, "", ""));
        PepClient pep =
            PepClient.builder()
                .pdp(s.address())
                .pepId("gw-1")
                .security(
                    pepTls(
                        engine, "gw-1", new PepSecurity.SessionReuse(Duration.ofMinutes(1), 100)))
                .ticker(nanos::get)
                .requestTimeout(Duration.ofSeconds(5))
                .build()) {
      PdpPepIntegrationTest.await(pep.open());
      nanos.addAndGet(Duration.ofMinutes(1).plusNanos(1).toNanos()); // the session's line ages
      PdpPepIntegrationTest.await(pep.reconnect());
      assertEquals(2, pep.fullHandshakes());
      assertEquals(0, pep.resumedHandshakes());
    }
  }

  @Test
  void aCertificateForAnotherPepIdIsRefusedWithAuthenticationFailure() throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        PepClient pep =
            pep(
                s,
                "gw-1",
                pepTls(TlsEngine.OPENSSL, "gw-2", PepSecurity.SessionReuse.DEFAULT),
                new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertEquals(ErrorCode.AUTHENTICATION_FAILURE.code(), e.errorCode(), e.getMessage());
      assertEquals(1, s.stats().securityRefusals());
    }
    var refused =
        audit(dir.resolve("audit.jsonl")).stream()
            .filter(r -> r.path("event").asText().equals("refused"))
            .findFirst()
            .orElseThrow();
    assertEquals("gw-1", refused.path("pep").asText());
    assertTrue(refused.path("reason").asText().contains("[gw-2]"), refused.toString());
    assertEquals("full", refused.path("tlsHandshake").asText(), refused.toString());
  }

  /** A PEP on the OpenSSL engine with these own files and trust. */
  private PepSecurity openSslPep(Path certificate, Path key, Path trust) {
    return new PepSecurity(
        TlsSettings.development(TlsEngine.OPENSSL, dir.resolve("pki")),
        true,
        certificate,
        key,
        trust,
        List.of(),
        PepSecurity.SessionReuse.DEFAULT,
        null);
  }

  /**
   * A certificate of another CA: the PEP used to time out (TLS 1.3 refuses a client certificate
   * after the client's side of the handshake is done) while the PDP logged "General OpenSslEngine
   * problem". Both now say the certificate was refused, and why.
   */
  @Test
  void aCertificateOfAnotherCaIsReportedAsRefusedOnBothSides() throws Exception {
    DevCertificates.Pki ours = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of());
    DevCertificates.Pki theirs =
        DevCertificates.ensure(dir.resolve("other-pki"), List.of(), List.of("gw-1"));
    DevCertificates.Credential c = theirs.peps().get("gw-1");
    PepSecurity foreign = openSslPep(c.certificateChain(), c.privateKey(), ours.caCertificate());
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        PepClient pep = pep(s, "gw-1", foreign, new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertEquals(ErrorCode.AUTHENTICATION_FAILURE.code(), e.errorCode(), e.getMessage());
      assertTrue(e.getMessage().contains("certificate refused"), e.getMessage());
    }
    var failed =
        audit(dir.resolve("audit.jsonl")).stream()
            .filter(r -> r.path("event").asText().equals("tls-failed"))
            .findFirst()
            .orElseThrow();
    assertTrue(failed.path("reason").asText().startsWith("certificate refused"), failed.toString());
  }

  /** A missing own certificate fails the open at once with the reason (was: a trace, a timeout). */
  @Test
  void aMissingOwnCertificateFailsTheOpenWithTheReason() throws Exception {
    DevCertificates.Pki ours = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of());
    PepSecurity missing =
        openSslPep(
            dir.resolve("not-yet-enrolled.crt"),
            dir.resolve("not-yet-enrolled.key"),
            ours.caCertificate());
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        PepClient pep = pep(s, "gw-1", missing, new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertTrue(e.getMessage().contains("not-yet-enrolled.crt"), e.getMessage());
      assertTrue(e.getMessage().contains("pep-client enrol"), e.getMessage());
    }
  }

  @Test
  void aMappedCertificateIdentityIsAccepted() throws Exception {
    String mapped =
        "<tls engine=\"openssl\" dev-pki=\"pki\"><pep-identity from=\"subject-cn\">"
            + "<map certificate=\"gw-2\" pep=\"edge-router\"/></pep-identity></tls>";
    try (PdpServer s =
            Pdps.start(
                dir, "<security>" + mapped + "<protection level=\"confidentiality\"/></security>");
        PepClient pep =
            pep(
                s,
                "edge-router",
                pepTls(TlsEngine.OPENSSL, "gw-2", PepSecurity.SessionReuse.DEFAULT),
                new PepListener() {})) {
      PdpPepIntegrationTest.await(pep.open());
      assertTrue(pep.isOpen());
    }
  }

  @Test
  void aPlainPepIsRefusedWithTlsRequired() throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        PepClient pep = pep(s, "gw-1", null, new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertEquals(ErrorCode.AUTHENTICATION_REQUIRED.code(), e.errorCode(), e.getMessage());
      assertEquals(ErrorCode.SUB_CODE_TLS_REQUIRED, e.subCode());
    }
  }

  @Test
  void thePdpInitiatesTlsWhenThePepOpensInPlain() throws Exception {
    List<String> kinds = new ArrayList<>();
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "initiate=\"true\"", ""));
        PepClient pep =
            pep(
                s,
                "gw-1",
                pepTls(
                    TlsEngine.OPENSSL, "gw-1", PepSecurity.SessionReuse.DEFAULT, false, List.of()),
                new PepListener() {
                  @Override
                  public void tlsEstablished(CopsTls.Handshake h) {
                    kinds.add(h.kind());
                  }
                })) {
      PdpPepIntegrationTest.await(pep.open());
      assertEquals(List.of("full"), kinds);
      assertTrue(
          PdpPepIntegrationTest.await(
                  pep.request("h1", PdpPepIntegrationTest.CTX, PdpPepIntegrationTest.ssh("alice")))
              .granted());
    }
    assertTrue(
        audit(dir.resolve("audit.jsonl")).stream()
            .anyMatch(
                r ->
                    r.path("event").asText().equals("tls-negotiation")
                        && r.path("initiator").asText().equals("pdp")));
  }

  @Test
  void aPepWithoutTlsAnswersThePdpsOfferWithTheRfcError() throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "initiate=\"true\"", ""));
        PepClient pep = pep(s, "gw-1", null, new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertEquals(ErrorCode.AUTHENTICATION_REQUIRED.code(), e.errorCode());
      assertEquals(ErrorCode.SUB_CODE_TLS_REQUIRED, e.subCode());
      assertTrue(e.getMessage().contains("no TLS configured"), e.getMessage());
    }
  }

  @Test
  void thePepAcceptsOnlyAnAuthorisedPdp() throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""))) {
      try (PepClient pep = pep(s, "gw-1", authorising("pdp.example.net"), new PepListener() {})) {
        PepException e = refusal(pep.open());
        assertEquals(ErrorCode.AUTHENTICATION_FAILURE.code(), e.errorCode());
        assertTrue(e.getMessage().contains("not an authorised PDP"), e.getMessage());
      }
      // The development PDP certificate names localhost (and 127.0.0.1, ::1).
      try (PepClient pep =
          pep(s, "gw-1", authorising("0:0:0:0:0:0:0:1", "localhost"), new PepListener() {})) {
        PdpPepIntegrationTest.await(pep.open());
        assertNotNull(pep.pdp());
      }
    }
  }

  PepSecurity authorising(String... pdps) throws Exception {
    return pepTls(TlsEngine.OPENSSL, "gw-1", PepSecurity.SessionReuse.DEFAULT, true, List.of(pdps));
  }

  // ---- RFC 4261 on the wire, and a client nobody here wrote ----

  /** Reads one COPS message from {@code in} (bounded by the header's length). */
  static CopsMessage read(InputStream in) throws Exception {
    byte[] header = in.readNBytes(8);
    assertEquals(8, header.length, "a COPS header");
    int len = ByteBuffer.wrap(header, 4, 4).getInt();
    assertTrue(len >= 8 && len < 4096, "length " + len);
    byte[] m = new byte[len];
    System.arraycopy(header, 0, m, 0, 8);
    byte[] body = in.readNBytes(len - 8);
    System.arraycopy(body, 0, m, 8, body.length);
    return CopsCodec.decode(m);
  }

  static byte[] startTlsOpen(String pepId) {
    return CopsCodec.encode(
        new ClientOpen(
            0, false, new PepId(pepId), null, null, new IntegrityTls(IntegrityTls.FLAG_START_TLS)));
  }

  @Test
  void copsWhereTheAgreedHandshakeShouldStartGetsClientClose15() throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        Socket sock = new Socket()) {
      sock.connect(s.address(), 5000);
      sock.setSoTimeout(5000);
      sock.getOutputStream().write(startTlsOpen("gw-1"));
      var cat = (ClientAccept) read(sock.getInputStream());
      assertEquals(0, cat.clientType());
      assertTrue(cat.integrity() instanceof IntegrityTls);
      // A keep-alive instead of a ClientHello.
      sock.getOutputStream().write(CopsCodec.encode(new KeepAlive(false, null)));
      var cc = (ClientClose) read(sock.getInputStream());
      assertEquals(ErrorCode.AUTHENTICATION_REQUIRED.code(), cc.error().code());
      assertEquals(ErrorCode.SUB_CODE_TLS_REQUIRED, cc.error().subCode());
      assertEquals(-1, sock.getInputStream().read(), "then the PDP closes");
    }
  }

  @Test
  void aStartTlsRequestToAPdpWithoutTlsGetsError13() throws Exception {
    try (PdpServer s = Pdps.start(dir, "");
        Socket sock = new Socket()) {
      sock.connect(s.address(), 5000);
      sock.setSoTimeout(5000);
      sock.getOutputStream().write(startTlsOpen("gw-1"));
      var cc = (ClientClose) read(sock.getInputStream());
      assertEquals(ErrorCode.UNKNOWN_OBJECT.code(), cc.error().code());
      assertEquals(ErrorCode.SUB_CODE_TLS_REQUIRED, cc.error().subCode());
    }
  }

  /**
   * {@code openssl s_client} completes a mutually authenticated handshake with the PDP after the
   * StartTLS exchange: a relay does the COPS part (OPN with Integrity-TLS, CAT) and then passes
   * bytes through, as s_client knows nothing of COPS.
   */
  @Test
  void opensslSClientCompletesTheHandshakeAfterStartTls() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(Path.of("/usr/bin/openssl")), "openssl is not installed");
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        ServerSocket relay = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      DevCertificates.Pki pki =
          DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("gw-1"));
      Thread t =
          new Thread(
              () -> {
                try (Socket client = relay.accept();
                    Socket pdp = new Socket()) {
                  pdp.connect(s.address(), 5000);
                  pdp.getOutputStream().write(startTlsOpen("gw-1"));
                  read(pdp.getInputStream()); // the CAT with Integrity-TLS
                  Thread back =
                      new Thread(
                          () -> {
                            try {
                              pdp.getInputStream().transferTo(client.getOutputStream());
                            } catch (IOException e) {
                              // the other side closed
                            }
                          });
                  back.start();
                  client.getInputStream().transferTo(pdp.getOutputStream());
                  back.join(5000);
                } catch (Exception e) {
                  // the test's assertions report what went wrong
                }
              },
              "starttls-relay");
      t.setDaemon(true);
      t.start();
      DevCertificates.Credential c = pki.peps().get("gw-1");
      Process p =
          new ProcessBuilder(
                  "openssl",
                  "s_client",
                  "-connect",
                  "127.0.0.1:" + relay.getLocalPort(),
                  "-CAfile",
                  pki.caCertificate().toString(),
                  "-cert",
                  c.certificateChain().toString(),
                  "-key",
                  c.privateKey().toString(),
                  "-verify_return_error",
                  "-verify_ip",
                  "127.0.0.1")
              .redirectErrorStream(true)
              .start();
      p.getOutputStream().close(); // EOF on stdin: s_client closes once the handshake is done
      assertTrue(p.waitFor(20, TimeUnit.SECONDS), "openssl s_client finished");
      String out = new String(p.getInputStream().readAllBytes());
      assertTrue(out.contains("Verify return code: 0 (ok)"), out);
      assertTrue(out.contains("TLSv1.3"), out);
      await().until(() -> s.stats().fullHandshakes() >= 1);
      assertEquals(1, s.stats().fullHandshakes(), "the PDP completed the handshake too");
    }
  }

  // ---- Integrity in the live protocol ----

  static String integrityPdp(String keys, String level) {
    return "<security><integrity>"
        + keys
        + "</integrity><protection pep=\"*\" level=\""
        + level
        + "\"/></security>";
  }

  static String key(int id, String file, Instant nb, Instant na) {
    return "<key id=\""
        + id
        + "\" secret-file=\""
        + file
        + "\" create=\"true\" not-before=\""
        + nb
        + "\" not-after=\""
        + na
        + "\"/>";
  }

  PepSecurity pepIntegrity(CryptoRegistry registry, String... keysXml) throws Exception {
    return pepIntegrity(dir, registry, keysXml);
  }

  /** A PEP's Integrity with the keys of {@code keysXml} (secret files in {@code dir}). */
  static PepSecurity pepIntegrity(Path dir, CryptoRegistry registry, String... keysXml)
      throws Exception {
    var root =
        XmlConfigReader.forSchema(PdpConfig.class, "/dev/portcullis/pdp/pdp.xsd")
            .read(
                new ByteArrayInputStream(
                    ("<pdp><client-type code=\"1\" engine=\"rules\" policy=\"x\"/><security><integrity>"
                            + String.join("", keysXml)
                            + "</integrity></security></pdp>")
                        .getBytes(StandardCharsets.UTF_8)),
                "test");
    var integrity = XmlConfigReader.child(XmlConfigReader.child(root, "security"), "integrity");
    var specs = IntegrityKeys.parse(integrity, dir, "test");
    return new PepSecurity(
        null,
        true,
        null,
        null,
        null,
        List.of(),
        PepSecurity.SessionReuse.DEFAULT,
        IntegrityKeys.ring(specs, registry));
  }

  @Test
  void integrityProtectsTheSessionAndAKeyRollNeverDropsThePep() throws Exception {
    // One clock for both sides, moved by hand: key 1 until now+3s; key 2 from now+1.5s: both
    // sides sign with key 2 once it is valid, and key 1 ends while the connection is open.
    Instant now = Instant.now();
    ManualClock clock = new ManualClock(now);
    String keys =
        key(1, "k1.hex", now.minusSeconds(3600), now.plusMillis(3000))
            + key(2, "k2.hex", now.plusMillis(1500), now.plusSeconds(3600));
    try (PdpServer s = Pdps.start(dir, "", integrityPdp(keys, "integrity"), clock);
        var registry = IntegrityKeys.registry(List.of());
        PepClient pep =
            PepClient.builder()
                .pdp(s.address())
                .pepId("gw-1")
                .clientType(AccessRequest.CLIENT_TYPE)
                .security(pepIntegrity(registry, keys))
                .requestTimeout(Duration.ofSeconds(5))
                .clock(clock)
                .build()) {
      PdpPepIntegrationTest.await(pep.open());
      for (int i = 0; i < 4; i++) {
        assertTrue(
            PdpPepIntegrationTest.await(
                    pep.request(
                        "h" + i, PdpPepIntegrationTest.CTX, PdpPepIntegrationTest.ssh("alice")))
                .granted(),
            "request " + i);
        clock.advance(Duration.ofMillis(1100)); // key 2 at 1.5 s, key 1 gone at 3 s
      }
      assertTrue(pep.isOpen());
      assertEquals(1, s.stats().totalConnections(), "never reconnected");
      assertEquals(0, s.stats().protocolErrors());
      // The moved clock is the one both sides judge by: key 1 is over for them, whatever the
      // machine's clock says (it is still valid by that one for another second or so).
      String onlyKey1 = key(1, "k1.hex", now.minusSeconds(3600), now.plusMillis(3000));
      try (PepClient late =
          PepClient.builder()
              .pdp(s.address())
              .pepId("gw-2")
              .clientType(AccessRequest.CLIENT_TYPE)
              .security(pepIntegrity(registry, onlyKey1))
              .requestTimeout(Duration.ofSeconds(5))
              .reconnect(Duration.ofSeconds(5), Duration.ofSeconds(5))
              .clock(clock)
              .build()) {
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class, () -> late.open().get(10, TimeUnit.SECONDS));
      }
    }
  }

  @Test
  void aPepWithoutIntegrityIsRefusedWhenItsLevelNeedsIt() throws Exception {
    Instant now = Instant.now();
    String keys = key(1, "k1.hex", now.minusSeconds(60), now.plusSeconds(3600));
    try (PdpServer s = Pdps.start(dir, integrityPdp(keys, "integrity"));
        PepClient pep = pep(s, "gw-1", null, new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertEquals(ErrorCode.AUTHENTICATION_REQUIRED.code(), e.errorCode());
      assertEquals(ErrorCode.SUB_CODE_INTEGRITY_REQUIRED, e.subCode());
    }
    assertTrue(
        audit(dir.resolve("audit.jsonl")).stream()
            .anyMatch(
                r ->
                    r.path("event").asText().equals("refused")
                        && r.path("subCode").asInt() == ErrorCode.SUB_CODE_INTEGRITY_REQUIRED));
  }

  @Test
  void aPepWithTheWrongKeyIsClosedWithAuthenticationFailure() throws Exception {
    Instant now = Instant.now();
    try (PdpServer s =
            Pdps.start(
                dir,
                integrityPdp(
                    key(1, "pdp-k1.hex", now.minusSeconds(60), now.plusSeconds(3600)),
                    "integrity"));
        var registry = IntegrityKeys.registry(List.of());
        PepClient pep =
            pep(
                s,
                "gw-1",
                pepIntegrity(
                    registry, key(1, "pep-k1.hex", now.minusSeconds(60), now.plusSeconds(3600))),
                new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertEquals(ErrorCode.AUTHENTICATION_FAILURE.code(), e.errorCode(), e.getMessage());
    }
  }

  @Test
  void tlsAndIntegrityTogether() throws Exception {
    Instant now = Instant.now();
    String keys = key(7, "k7.hex", now.minusSeconds(60), now.plusSeconds(3600));
    String sec =
        "<security><tls engine=\"openssl\" dev-pki=\"pki\"/><integrity>"
            + keys
            + "</integrity><protection pep=\"*\" level=\"integrity+confidentiality\"/></security>";
    try (PdpServer s = Pdps.start(dir, sec);
        var registry = IntegrityKeys.registry(List.of())) {
      PepSecurity tls = pepTls(TlsEngine.OPENSSL, "gw-1", PepSecurity.SessionReuse.DEFAULT);
      PepSecurity both =
          new PepSecurity(
              tls.tls(),
              true,
              tls.certificate(),
              tls.key(),
              tls.trust(),
              List.of(),
              tls.sessionReuse(),
              pepIntegrity(registry, keys).keys());
      try (PepClient pep = pep(s, "gw-1", both, new PepListener() {})) {
        PdpPepIntegrationTest.await(pep.open());
        assertTrue(
            PdpPepIntegrationTest.await(
                    pep.request(
                        "h1", PdpPepIntegrationTest.CTX, PdpPepIntegrationTest.ssh("alice")))
                .granted());
      }
      // TLS alone is below this level.
      try (PepClient pep = pep(s, "gw-1", tls, new PepListener() {})) {
        PepException e = refusal(pep.open());
        assertEquals(ErrorCode.SUB_CODE_INTEGRITY_REQUIRED, e.subCode());
      }
    }
  }
}
