package dev.portcullis.pep;

import dev.portcullis.cops.ProtectionLevel;
import dev.portcullis.cops.integrity.KeyRing;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.cops.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLException;

/**
 * How a PEP protects its connection: TLS (RFC 4261, PEP-initiated) with the PDP names it accepts
 * and a session reuse policy, and/or the Integrity object with its key ring. Read from pep.xml by
 * {@link PepConfig}, or built directly.
 *
 * @param tls TLS settings, or null for no TLS
 * @param initiateTls start TLS with a client-type 0 Client-Open (RFC 4261 section 5.1); false: open
 *     in plain and wait for the PDP to ask for TLS (section 5.2), closing if it does not
 * @param certificate own certificate chain (PEM), or null to present none
 * @param key own private key, or null
 * @param trust CA certificates that issue PDP certificates (with {@code tls})
 * @param authorisedPdps subjectAltName dNSName or iPAddress values a PDP certificate must carry one
 *     of (RFC 4261 section 7); empty: any the CA issued for the host connected to
 * @param sessionReuse how long and how often a TLS session may be resumed
 * @param keys Integrity keys, or null for no Integrity
 */
public record PepSecurity(
    TlsSettings tls,
    boolean initiateTls,
    Path certificate,
    Path key,
    Path trust,
    List<String> authorisedPdps,
    SessionReuse sessionReuse,
    KeyRing keys) {

  /**
   * The COPS over TLS/IPsec paper, section 5.1: a secure session is reused, within bounds. A
   * session is resumed on reconnects until it is {@code maxAge} old (from its full handshake) or
   * has been resumed {@code maxUses} times; then the next connection makes a full handshake. {@code
   * maxUses} 0 never resumes.
   */
  public record SessionReuse(Duration maxAge, int maxUses) {
    /** What pep.xsd gives {@code <session-reuse>}'s attributes (one hour, 100 resumptions). */
    public static final SessionReuse DEFAULT = PepConfig.defaultSessionReuse();

    public SessionReuse {
      Objects.requireNonNull(maxAge, "maxAge");
      if (maxAge.isNegative() || maxUses < 0) {
        throw new IllegalArgumentException(
            "session reuse: max-age " + maxAge + ", max-uses " + maxUses + " (expected: >= 0)");
      }
    }
  }

  public PepSecurity {
    authorisedPdps = authorisedPdps.stream().map(CopsTls::canonicalAddress).toList();
    Objects.requireNonNull(sessionReuse, "sessionReuse");
    if (tls != null && trust == null) {
      throw new IllegalArgumentException("TLS needs trusted CA certificates");
    }
  }

  /** The protection level this PEP offers. */
  public ProtectionLevel level() {
    return ProtectionLevel.of(tls != null, keys != null);
  }

  /** A fresh client context: a new, empty session cache. */
  CopsTls newTls() throws SSLException {
    return CopsTls.client(tls, certificate, key, trust);
  }
}
