package dev.portcullis.cops.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.cert.CertificateException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** What a failed handshake is said to mean, in the words a log line gives an operator. */
class FailureReasonTest {
  @Test
  void aCertificateThisSideRefusedSaysWhy() {
    var e = new SSLHandshakeException("handshake");
    e.initCause(new CertificateException("No subject alternative names matching IP 192.0.2.2"));
    assertEquals(
        "certificate refused: No subject alternative names matching IP 192.0.2.2",
        CopsTls.failureReason(e));
  }

  /**
   * Issue 47: a PEP refused the PDP's certificate for its name, and the PDP logged BoringSSL's raw
   * {@code error:10000438:...TLSV1_ALERT_INTERNAL_ERROR}. It says the peer ended it, and where the
   * reason is.
   */
  @Test
  void anInternalErrorAlertPointsAtThePeersLog() {
    String why =
        CopsTls.failureReason(
            new SSLHandshakeException(
                "error:10000438:SSL routines:OPENSSL_internal:TLSV1_ALERT_INTERNAL_ERROR"));
    assertTrue(why.startsWith("the peer ended the handshake (TLS alert internal_error)"), why);
    assertTrue(why.contains("its log says why"), why);
    assertTrue(
        CopsTls.failureReason(new SSLHandshakeException("Received fatal alert: internal_error"))
            .startsWith("the peer ended the handshake"));
  }

  @Test
  void aCertificateAlertIsACertificateThePeerRefused() {
    assertEquals(
        "certificate refused by the peer (TLS alert alert_unknown_ca)",
        CopsTls.failureReason(
            new SSLHandshakeException(
                "error:10000418:SSL routines:OPENSSL_internal:TLSV1_ALERT_UNKNOWN_CA")));
  }
}
