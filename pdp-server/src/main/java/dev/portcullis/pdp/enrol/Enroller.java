package dev.portcullis.pdp.enrol;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.support.pki.DevCertificates;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;

/**
 * The PDP side of enrolment with a one-time credential (the dynamic VPN tunnels paper, tables 3 and
 * 4): checks the credential (known, bound to the PEP id of the connection, not expired, secret
 * right), checks the certification request (signed by the key it names, subject CN = the PEP id, a
 * P-256 or RSA 2048+ key), marks the credential used — durably, before anything is issued — and
 * issues the certificate under the configured CA.
 */
public final class Enroller {
  /** What an attempt came to; {@code reason} is safe to send to the PEP and to log. */
  public record Outcome(
      boolean granted, String reason, X509Certificate certificate, Enrolment.Response response) {}

  private final CredentialStore store;
  private final X509Certificate caCertificate;
  private final PrivateKey caKey;
  private final Duration lifetime;
  private final Signing tunnelSigning;

  /** A provider to sign with and the CA key as that provider holds it (null: the JCA's first). */
  private record Signing(java.security.Provider provider, PrivateKey key) {}

  public Enroller(
      CredentialStore store, X509Certificate caCertificate, PrivateKey caKey, Duration lifetime) {
    this.store = store;
    this.caCertificate = caCertificate;
    this.caKey = caKey;
    this.lifetime = lifetime;
    this.tunnelSigning = fastestSigning(caKey);
  }

  /**
   * Tunnel certificates are signed on the set-up path of every tunnel, two each: with Conscrypt
   * (BoringSSL) where it loads, else the JCA's first provider. Measured here (2 cores, JDK 17,
   * SHA256withECDSA on P-256, 1,000 signatures): Conscrypt 0.024 ms, Bouncy Castle 0.320 ms, SunEC
   * 0.572 ms a signature.
   */
  private static Signing fastestSigning(PrivateKey caKey) {
    byte[] pkcs8 = null;
    try {
      if (org.conscrypt.Conscrypt.isAvailable()) {
        java.security.Provider p = org.conscrypt.Conscrypt.newProvider();
        pkcs8 = caKey.getEncoded();
        PrivateKey k =
            java.security.KeyFactory.getInstance(caKey.getAlgorithm(), p)
                .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(pkcs8));
        return new Signing(p, k);
      }
    } catch (GeneralSecurityException | RuntimeException | LinkageError e) {
      // the JCA's first provider signs, slower
    } finally {
      if (pkcs8 != null) {
        Arrays.fill(pkcs8, (byte) 0);
      }
    }
    return new Signing(null, caKey);
  }

  public CredentialStore store() {
    return store;
  }

  /** The CA's certificate (DER): what an agent's charon trusts a tunnel's peer under. */
  public byte[] caCertificate() {
    try {
      return caCertificate.getEncoded();
    } catch (java.security.cert.CertificateEncodingException e) {
      throw new IllegalStateException("the CA certificate cannot be encoded: " + e, e);
    }
  }

  /**
   * Certifies a tunnel agent's one-time public key for one end of one tunnel (docs/tunnels.md,
   * {@link dev.portcullis.support.pki.TunnelCertificates}); the CA's key never leaves this object.
   */
  public byte[] issueTunnelCertificate(
      byte[] publicKey, String owner, String tunnelId, String ikeId, Instant now, Duration valid)
      throws GeneralSecurityException {
    return dev.portcullis.support.pki.TunnelCertificates.issue(
        caCertificate,
        tunnelSigning.key(),
        tunnelSigning.provider(),
        publicKey,
        owner,
        tunnelId,
        ikeId,
        now,
        valid);
  }

  /**
   * Runs one attempt by the PEP {@code pepId} (from its Client-Open on a TLS connection). Blocks on
   * disk I/O: call off the event loop.
   */
  public Outcome enrol(String pepId, Enrolment.Request r, Instant now) {
    byte[] secret = r.secret().toArray();
    try {
      CredentialStore.Credential c = store.lookup(r.credentialId());
      if (c == null) {
        return refused("unknown credential " + r.credentialId());
      }
      if (store.state(c.id()) == CredentialStore.State.USED) {
        return refused("credential " + c.id() + " was used already");
      }
      if (!c.pepId().equals(pepId)) {
        return refused("credential " + c.id() + " is bound to another PEP id, not " + pepId);
      }
      if (!now.isBefore(c.notAfter())) {
        return refused("credential " + c.id() + " expired at " + c.notAfter());
      }
      if (!store.secretMatches(c, secret)) {
        return refused("credential " + c.id() + ": wrong secret");
      }
      PublicKey key;
      try {
        key = checkedKey(r.csr(), pepId);
      } catch (GeneralSecurityException | IOException | RuntimeException e) {
        return refused("certification request refused: " + e.getMessage());
      }
      if (!store.consume(c.id())) {
        return refused("credential " + c.id() + " was used already");
      }
      X509Certificate cert =
          DevCertificates.issuePepCertificate(caCertificate, caKey, pepId, key, lifetime);
      return new Outcome(
          true,
          null,
          cert,
          new Enrolment.Response(
              List.of(Bytes.of(cert.getEncoded()), Bytes.of(caCertificate.getEncoded())), null));
    } catch (IOException | GeneralSecurityException e) {
      return refused("the PDP could not complete enrolment: " + e.getClass().getSimpleName());
    } finally {
      Arrays.fill(secret, (byte) 0);
    }
  }

  private static Outcome refused(String reason) {
    return new Outcome(false, reason, null, new Enrolment.Response(List.of(), reason));
  }

  private static PublicKey checkedKey(Bytes der, String pepId)
      throws IOException, GeneralSecurityException {
    JcaPKCS10CertificationRequest csr = new JcaPKCS10CertificationRequest(der.toArray());
    PublicKey key = csr.getPublicKey();
    try {
      if (!csr.isSignatureValid(new JcaContentVerifierProviderBuilder().build(key))) {
        throw new GeneralSecurityException("its signature does not verify");
      }
    } catch (org.bouncycastle.operator.OperatorCreationException | PKCSException e) {
      throw new GeneralSecurityException("its signature cannot be checked: " + e.getMessage(), e);
    }
    if (key instanceof ECPublicKey) {
      int bits = ((ECPublicKey) key).getParams().getCurve().getField().getFieldSize();
      if (bits < 256) {
        throw new GeneralSecurityException("EC key of " + bits + " bits (expected: 256 or more)");
      }
    } else if (key instanceof RSAPublicKey) {
      int bits = ((RSAPublicKey) key).getModulus().bitLength();
      if (bits < 2048) {
        throw new GeneralSecurityException("RSA key of " + bits + " bits (expected: 2048+)");
      }
    } else {
      throw new GeneralSecurityException(key.getAlgorithm() + " key (expected: EC or RSA)");
    }
    String cn = null;
    for (var rdn : csr.getSubject().getRDNs(org.bouncycastle.asn1.x500.style.BCStyle.CN)) {
      cn = rdn.getFirst().getValue().toString();
    }
    if (!pepId.equals(cn)) {
      throw new GeneralSecurityException("subject CN " + cn + " (expected: " + pepId + ")");
    }
    return key;
  }
}
