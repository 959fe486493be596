package dev.portcullis.support.pki;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.Locale;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates for one tunnel (the dynamic VPN tunnels paper, section 3: a one-time key pair per
 * user session, certified by the domain's authority): the agent makes the key pair and sends only
 * its public key; the PDP's authority certifies that key for one tunnel's IKE identity (the
 * subjectAltName charon matches the identity against), naming the subject and the tunnel (the
 * subject DN: {@code CN=subject, OU=tunnel id, O=Portcullis tunnel}), valid for the tunnel's
 * lifetime and no longer.
 *
 * <p>The public keys taken are those charon signs IKE with and that cost least to check: Ed25519
 * (RFC 8410) and ECDSA P-256; each is checked to be a valid point, with nothing after its encoding.
 */
public final class TunnelCertificates {
  private static final SecureRandom RANDOM = new SecureRandom();

  /** RFC 8410's id-Ed25519. */
  private static final ASN1ObjectIdentifier ID_ED25519 = new ASN1ObjectIdentifier("1.3.101.112");

  /** How far back a certificate's validity starts: the clocks of two hosts differ a little. */
  public static final Duration SKEW = Duration.ofMinutes(5);

  private static final Pattern HOST_NAME =
      Pattern.compile(
          "(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
  private static final Pattern MAILBOX =
      Pattern.compile("[\\x21-\\x3f\\x41-\\x7e]{1,64}@[a-zA-Z0-9.-]{1,253}");

  private TunnelCertificates() {}

  /**
   * The key type charon is to load for a public key an agent sent ({@code ed25519} or {@code
   * ecdsa}), after checking it: its {@link #structure}, then that it is a point of its curve (for
   * P-256 a point decoded and checked to be on the curve and not at infinity; for Ed25519 RFC
   * 8032's full check).
   *
   * @throws GeneralSecurityException naming what is wrong with it (never echoing the bytes)
   */
  public static String keyType(byte[] subjectPublicKeyInfo) throws GeneralSecurityException {
    SubjectPublicKeyInfo spki = structure(subjectPublicKeyInfo);
    byte[] key = spki.getPublicKeyData().getOctets();
    if (ID_ED25519.equals(spki.getAlgorithm().getAlgorithm())) {
      if (!Ed25519.validatePublicKeyFull(key, 0)) {
        throw new GeneralSecurityException("the Ed25519 public key is not a valid point");
      }
      return "ed25519";
    }
    X9ECParameters p = CustomNamedCurves.getByOID(SECObjectIdentifiers.secp256r1);
    try {
      var point = new ECDomainParameters(p).getCurve().decodePoint(key);
      if (point.isInfinity() || !point.isValid()) {
        throw new GeneralSecurityException("the P-256 public key is not a valid point");
      }
    } catch (IllegalArgumentException e) {
      throw new GeneralSecurityException("the P-256 public key is not a valid point");
    }
    return "ecdsa";
  }

  /**
   * Issues the certificate of one end of one tunnel (DER).
   *
   * @param subjectPublicKeyInfo the end's public key, as its agent sent it, checked by {@link
   *     #keyType} when it arrived (its structure is checked here again)
   * @param owner who holds the end: the tunnel's subject, or the gateway's name
   * @param tunnelId the tunnel
   * @param ikeId the end's IKE identity, as charon will match it: a mailbox ({@code a@b}) becomes
   *     an rfc822Name, an address an iPAddress, a host name a dNSName
   * @param now the issuer's time
   * @param lifetime the tunnel's: the certificate is no use after it
   */
  public static byte[] issue(
      X509Certificate ca,
      PrivateKey caKey,
      byte[] subjectPublicKeyInfo,
      String owner,
      String tunnelId,
      String ikeId,
      Instant now,
      Duration lifetime)
      throws GeneralSecurityException {
    return issue(ca, caKey, null, subjectPublicKeyInfo, owner, tunnelId, ikeId, now, lifetime);
  }

  /**
   * As {@link #issue(X509Certificate, PrivateKey, byte[], String, String, String, Instant,
   * Duration)}, signed by {@code signer} (null: the JCA's first provider for the CA key's
   * algorithm), {@code caKey} being that provider's own key.
   */
  public static byte[] issue(
      X509Certificate ca,
      PrivateKey caKey,
      java.security.Provider signer,
      byte[] subjectPublicKeyInfo,
      String owner,
      String tunnelId,
      String ikeId,
      Instant now,
      Duration lifetime)
      throws GeneralSecurityException {
    SubjectPublicKeyInfo spki = structure(subjectPublicKeyInfo);
    X500Name subject =
        new X500NameBuilder(BCStyle.INSTANCE)
            .addRDN(BCStyle.O, "Portcullis tunnel")
            .addRDN(BCStyle.OU, tunnelId)
            .addRDN(BCStyle.CN, owner)
            .build();
    try {
      X509v3CertificateBuilder b =
          new X509v3CertificateBuilder(
              X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()),
              new BigInteger(127, RANDOM).add(BigInteger.ONE),
              Date.from(now.minus(SKEW)),
              Date.from(now.plus(lifetime)),
              subject,
              spki);
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(spki));
      b.addExtension(Extension.authorityKeyIdentifier, false, authorityKeyId(ca, ext));
      b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(name(ikeId)));
      JcaContentSignerBuilder sign = new JcaContentSignerBuilder(signatureAlgorithm(caKey));
      if (signer != null) {
        sign.setProvider(signer);
      }
      return b.build(sign.build(caKey)).getEncoded();
    } catch (IOException | OperatorCreationException e) {
      throw new GeneralSecurityException(
          "cannot issue tunnel " + tunnelId + "'s certificate: " + e.getMessage(), e);
    }
  }

  /** The last authority's key identifier: computed once per CA, not once per certificate. */
  private static volatile Object[] lastAuthority = new Object[2];

  private static org.bouncycastle.asn1.x509.AuthorityKeyIdentifier authorityKeyId(
      X509Certificate ca, JcaX509ExtensionUtils ext) throws GeneralSecurityException {
    Object[] last = lastAuthority;
    if (ca.equals(last[0])) {
      return (org.bouncycastle.asn1.x509.AuthorityKeyIdentifier) last[1];
    }
    var id = ext.createAuthorityKeyIdentifier(ca);
    lastAuthority = new Object[] {ca, id};
    return id;
  }

  /**
   * The public key's structure, without {@link #keyType}'s point check: one DER
   * SubjectPublicKeyInfo of an Ed25519 key (32 bytes, no parameters) or a P-256 key (an
   * uncompressed or compressed point's length), each wrong part named. {@link #keyType} checks the
   * point itself, once, as the key arrives; this is what {@link #issue} checks again on the set-up
   * path (the point check is a scalar multiplication, ~0.15 ms).
   */
  private static SubjectPublicKeyInfo structure(byte[] der) throws GeneralSecurityException {
    SubjectPublicKeyInfo spki;
    try {
      spki = SubjectPublicKeyInfo.getInstance(der);
      if (spki == null || !Arrays.equals(spki.getEncoded("DER"), der)) {
        throw new GeneralSecurityException(
            "the public key is not one DER SubjectPublicKeyInfo (bytes after it, or not DER)");
      }
    } catch (IOException | IllegalArgumentException | ClassCastException e) {
      throw new GeneralSecurityException(
          "the public key is not a DER SubjectPublicKeyInfo: " + e.getMessage());
    }
    AlgorithmIdentifier alg = spki.getAlgorithm();
    ASN1ObjectIdentifier oid = alg.getAlgorithm();
    int n = spki.getPublicKeyData().getOctets().length;
    if (ID_ED25519.equals(oid)) {
      if (alg.getParameters() != null) {
        throw new GeneralSecurityException("an Ed25519 key has no parameters (RFC 8410)");
      }
      if (n != Ed25519.PUBLIC_KEY_SIZE) {
        throw new GeneralSecurityException(
            "the Ed25519 public key is " + n + " bytes (expected: 32)");
      }
      return spki;
    }
    if (X9ObjectIdentifiers.id_ecPublicKey.equals(oid)) {
      if (!SECObjectIdentifiers.secp256r1.equals(alg.getParameters())) {
        throw new GeneralSecurityException("an ECDSA key must be on P-256 (secp256r1)");
      }
      if (n != 65 && n != 33) {
        throw new GeneralSecurityException(
            "the P-256 public key is "
                + n
                + " bytes (expected: 65, uncompressed, or 33, compressed)");
      }
      return spki;
    }
    throw new GeneralSecurityException(
        "public key algorithm " + oid.getId() + ": expected Ed25519 or ECDSA P-256");
  }

  /** Null if a certificate can name IKE identity {@code id}; else why not. */
  public static String nameRefusal(String id) {
    try {
      name(id);
      return null;
    } catch (GeneralSecurityException e) {
      return e.getMessage();
    }
  }

  /** The subjectAltName charon matches IKE identity {@code id} against. */
  static GeneralName name(String id) throws GeneralSecurityException {
    if (org.bouncycastle.util.IPAddress.isValid(id)) {
      return new GeneralName(GeneralName.iPAddress, id);
    }
    int at = id.indexOf('@');
    if (at > 0 && MAILBOX.matcher(id).matches()) {
      return new GeneralName(GeneralName.rfc822Name, id);
    }
    if (at < 0 && HOST_NAME.matcher(id).matches() && id.length() <= 253) {
      return new GeneralName(GeneralName.dNSName, id.toLowerCase(Locale.ROOT));
    }
    throw new GeneralSecurityException(
        "IKE identity "
            + id
            + " is no host name, mailbox or address: a certificate cannot name it (use"
            + " keying=\"psk\" for such identities)");
  }

  private static String signatureAlgorithm(PrivateKey caKey) {
    return switch (caKey.getAlgorithm()) {
      case "EC", "ECDSA" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> "SHA256with" + caKey.getAlgorithm();
    };
  }
}
