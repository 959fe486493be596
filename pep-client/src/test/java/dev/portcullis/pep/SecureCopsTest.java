package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.tls.DevCertificates;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.pdp.AuditChain;
import dev.portcullis.pdp.PdpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  static PepException refusal(java.util.concurrent.CompletableFuture<?> f) throws Exception {
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
          public void tlsEstablished(dev.portcullis.cops.tls.CopsTls.Handshake h) {
            kinds.add(h.kind());
          }
        };
    // Conscrypt 2.9 never resumes a TLS 1.3 session (measured: docs/tls.md); it resumes TLS 1.2.
    String protocols =
        engine == TlsEngine.CONSCRYPT || engine == TlsEngine.BOUNCY_CASTLE
            ? "protocols=\"TLSv1.2\""
            : "";
    try (PdpServer s = Pdps.start(dir, tlsPdp(engine, protocols, ""));
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
      assertEquals(List.of("full", "resumed", "resumed"), kinds, engine.name());
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

  @Test
  void theReusePolicyBoundsHowOftenASessionIsResumed() throws Exception {
    TlsEngine engine = TlsEngine.OPENSSL;
    try (PdpServer s = Pdps.start(dir, tlsPdp(engine, "", ""));
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
    try (PdpServer s = Pdps.start(dir, tlsPdp(engine, "", ""));
        PepClient pep =
            pep(
                s,
                "gw-1",
                pepTls(engine, "gw-1", new PepSecurity.SessionReuse(Duration.ofMillis(1), 100)),
                new PepListener() {})) {
      PdpPepIntegrationTest.await(pep.open());
      Thread.sleep(5);
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
                  public void tlsEstablished(dev.portcullis.cops.tls.CopsTls.Handshake h) {
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
  void aPdpNotInTheAuthorisedListIsRefusedByThePep() throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        PepClient pep =
            pep(
                s,
                "gw-1",
                pepTls(
                    TlsEngine.OPENSSL,
                    "gw-1",
                    PepSecurity.SessionReuse.DEFAULT,
                    true,
                    List.of("pdp.example.net")),
                new PepListener() {})) {
      PepException e = refusal(pep.open());
      assertEquals(ErrorCode.AUTHENTICATION_FAILURE.code(), e.errorCode());
      assertTrue(e.getMessage().contains("not an authorised PDP"), e.getMessage());
    }
  }

  @Test
  void aPdpInTheAuthorisedListIsAccepted() throws Exception {
    try (PdpServer s = Pdps.start(dir, tlsPdp(TlsEngine.OPENSSL, "", ""));
        PepClient pep =
            pep(
                s,
                "gw-1",
                pepTls(
                    TlsEngine.OPENSSL,
                    "gw-1",
                    PepSecurity.SessionReuse.DEFAULT,
                    true,
                    List.of("0:0:0:0:0:0:0:1", "localhost")),
                new PepListener() {})) {
      PdpPepIntegrationTest.await(pep.open());
      assertNotNull(pep.pdp());
    }
  }
}
