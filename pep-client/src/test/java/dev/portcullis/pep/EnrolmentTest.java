package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.enrol.CredentialStore;
import dev.portcullis.support.ManualClock;
import dev.portcullis.support.pki.DevCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Enrolment with one-time credentials, end to end over loopback TLS. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EnrolmentTest {
  private static final Digester SHA256 =
      IntegrityKeys.registry(List.of()).digester(Algorithm.SHA_256);

  @TempDir Path dir;

  static final String SECURITY =
      "<security><tls engine=\"openssl\" dev-pki=\"pki\" client-auth=\"optional\"/>"
          + "<protection pep=\"*\" level=\"confidentiality\"/>"
          + "<enrolment store=\"credentials\" certificate-lifetime=\"P30D\"/></security>";

  PdpServer pdp() throws Exception {
    return Pdps.start(dir, SECURITY);
  }

  CredentialStore store() throws Exception {
    return CredentialStore.open(dir.resolve("credentials"), SHA256);
  }

  Path ca() throws Exception {
    return DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of()).caCertificate();
  }

  PepEnrolment.Result enrol(PdpServer s, String pepId, String token) throws Exception {
    return PepEnrolment.enrol(
        s.address(),
        pepId,
        TlsSettings.development(TlsEngine.OPENSSL, dir.resolve("pki")),
        ca(),
        List.of(),
        token,
        dir.resolve(pepId + ".crt"),
        dir.resolve(pepId + ".key"));
  }

  PepException refused(PdpServer s, String pepId, String token) {
    return assertThrows(PepException.class, () -> enrol(s, pepId, token));
  }

  @Test
  void aNewPepEnrolsOnceThenConnectsWithItsCertificate() throws Exception {
    try (PdpServer s = pdp()) {
      CredentialStore.Issued otc = store().issue("gw-7", Duration.ofHours(1));
      PepEnrolment.Result r = enrol(s, "gw-7", otc.token());
      assertEquals("gw-7", CopsTls.commonName(r.certificate()));
      assertEquals(CredentialStore.State.USED, store().state(otc.id()));
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(r.keyFile())));
      // The certificate opens the access client type with mutual authentication.
      PepSecurity own =
          new PepSecurity(
              TlsSettings.development(TlsEngine.OPENSSL, dir.resolve("pki")),
              true,
              r.certificateFile(),
              r.keyFile(),
              ca(),
              List.of(),
              PepSecurity.SessionReuse.DEFAULT,
              null);
      try (PepClient pep = SecureCopsTest.pep(s, "gw-7", own, new PepListener() {})) {
        PdpPepIntegrationTest.await(pep.open());
        assertTrue(
            PdpPepIntegrationTest.await(
                    pep.request(
                        "h1", PdpPepIntegrationTest.CTX, PdpPepIntegrationTest.ssh("alice")))
                .granted());
      }
      // Used once: never again.
      PepException again = refused(s, "gw-7", otc.token());
      assertTrue(again.getMessage().contains("used already"), again.getMessage());
    }
    List<String> events = new ArrayList<>();
    for (var r : SecureCopsTest.audit(dir.resolve("audit.jsonl"))) {
      events.add(r.path("event").asText());
    }
    assertTrue(events.contains("enrolment-attempt"), events.toString());
    assertTrue(events.contains("enrolled"), events.toString());
    assertTrue(events.contains("enrolment-refused"), events.toString());
    assertTrue(AuditChain.verify(dir.resolve("audit.jsonl")).intact());
  }

  @Test
  void anExpiredCredentialIsRefused() throws Exception {
    ManualClock clock = new ManualClock(Instant.now());
    try (PdpServer s = Pdps.start(dir, "", SECURITY, clock)) {
      CredentialStore.Issued otc = store().issue("gw-7", Duration.ofMinutes(10), clock.instant());
      clock.advance(Duration.ofMinutes(10).plusSeconds(1));
      PepException e = refused(s, "gw-7", otc.token());
      assertTrue(e.getMessage().contains("expired"), e.getMessage());
      assertEquals(ErrorCode.AUTHENTICATION_FAILURE.code(), e.errorCode());
    }
  }

  @Test
  void aCredentialBoundToAnotherPepIdIsRefusedAndStaysValid() throws Exception {
    try (PdpServer s = pdp()) {
      CredentialStore.Issued otc = store().issue("gw-8", Duration.ofHours(1));
      PepException e = refused(s, "gw-7", otc.token());
      assertTrue(e.getMessage().contains("bound to another PEP id"), e.getMessage());
      assertEquals(CredentialStore.State.VALID, store().state(otc.id()));
    }
  }

  @Test
  void aWrongSecretIsRefused() throws Exception {
    try (PdpServer s = pdp()) {
      CredentialStore.Issued otc = store().issue("gw-7", Duration.ofHours(1));
      String forged = otc.id() + "." + "A".repeat(43);
      PepException e = refused(s, "gw-7", forged);
      assertTrue(e.getMessage().contains("wrong secret"), e.getMessage());
      assertEquals(CredentialStore.State.VALID, store().state(otc.id()));
    }
  }

  @Test
  void withoutACertificateOnlyEnrolmentIsOpen() throws Exception {
    try (PdpServer s = pdp()) {
      PepSecurity noCertificate =
          new PepSecurity(
              TlsSettings.development(TlsEngine.OPENSSL, dir.resolve("pki")),
              true,
              null,
              null,
              ca(),
              List.of(),
              PepSecurity.SessionReuse.DEFAULT,
              null);
      try (PepClient pep = SecureCopsTest.pep(s, "gw-7", noCertificate, new PepListener() {})) {
        PepException e = SecureCopsTest.refusal(pep.open());
        assertEquals(ErrorCode.AUTHENTICATION_FAILURE.code(), e.errorCode());
      }
    }
    assertTrue(
        SecureCopsTest.audit(dir.resolve("audit.jsonl")).stream()
            .anyMatch(
                r ->
                    r.path("event").asText().equals("refused")
                        && r.path("clientType").asInt() == AccessRequest.CLIENT_TYPE
                        && r.path("reason").asText().contains("only enrolment")));
  }
}
