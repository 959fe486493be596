package dev.portcullis.support.pki;

import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.OwnedFile;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.IPAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A development PKI, made on first use so that TLS works out of the box: a private CA, a PDP
 * certificate and one client certificate per PEP id, as PEM files that Netty's {@code
 * SslContextBuilder} reads directly. Everything lives in one directory that only its owner may
 * read; existing files are reused, so PEP ids added later get certificates from the same CA.
 *
 * <p>Keys are ECDSA P-256 and certificates SHA-256 with ECDSA, signed through the platform's JCA
 * providers (Bouncy Castle only builds the ASN.1). The PDP certificate names {@code localhost},
 * 127.0.0.1, ::1 and any further names given, as dNSName or iPAddress subjectAltNames (RFC 4261
 * section 7); a PEP certificate carries its PEP id as the subject common name, and as a dNSName
 * when the id is a host name. Not for production: the CA key sits next to the certificates.
 *
 * <p>Layout: {@code ca.crt}, {@code ca.key}, {@code pdp.crt} (chain: PDP then CA), {@code pdp.key},
 * {@code pep-ID.crt}, {@code pep-ID.key}. Keys are unencrypted PKCS#8.
 */
public final class DevCertificates {
  private static final Logger log = LoggerFactory.getLogger(DevCertificates.class);
  private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final Pattern HOST_NAME =
      Pattern.compile(
          "(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*"
              + "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
  private static final Duration CA_LIFETIME = Duration.ofDays(2 * 365);
  private static final Duration LEAF_LIFETIME = Duration.ofDays(365);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A certificate chain file and its private key file, as Netty's SslContextBuilder takes them. */
  public record Credential(Path certificateChain, Path privateKey) {}

  /** The files of a development PKI. */
  public record Pki(
      Path directory, Path caCertificate, Credential pdp, Map<String, Credential> peps) {}

  private final Path dir;
  private final List<String> generated = new ArrayList<>();
  private PrivateKey caKey;
  private X509Certificate caCert;

  private DevCertificates(Path dir) {
    this.dir = dir;
  }

  /**
   * Makes what is missing of the development PKI in {@code dir} and returns its files.
   *
   * @param pdpNames further DNS names or IP addresses for the PDP certificate
   * @param pepIds PEP ids to issue client certificates for: letters, digits, '.', '_', '-'
   * @throws IllegalArgumentException for a PEP id that cannot name a file
   * @throws IOException if the directory cannot be made private or holds half a key pair
   */
  public static Pki ensure(Path dir, Collection<String> pdpNames, Collection<String> pepIds)
      throws IOException {
    for (String id : pepIds) {
      if (!SAFE_ID.matcher(id).matches()) {
        throw new IllegalArgumentException(
            "PEP id '"
                + id
                + "' cannot name a development certificate: use 1-64 letters, digits, '.', '_'"
                + " or '-', starting with a letter or digit");
      }
    }
    DevCertificates pki = new DevCertificates(dir);
    try {
      return pki.make(pdpNames, pepIds);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot make development certificates in " + dir + ": " + e, e);
    }
  }

  private Pki make(Collection<String> pdpNames, Collection<String> pepIds)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    privateDirectory();
    Path caCrt = dir.resolve("ca.crt");
    Path caKeyFile = dir.resolve("ca.key");
    if (complete("ca", caCrt, caKeyFile)) {
      caCert = readCertificate(caCrt);
      caKey = readKey(caKeyFile);
    } else {
      KeyPair kp = keyPair();
      X500Name name = name("Portcullis development CA");
      Instant now = Instant.now();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              name, serial(), from(now), Date.from(now.plus(CA_LIFETIME)), name, kp.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      b.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      b.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
      caCert = sign(b, kp.getPrivate());
      caKey = kp.getPrivate();
      write(caKeyFile, pem(new JcaPKCS8Generator(caKey, null)));
      write(caCrt, pem(caCert));
      generated.add("CA");
    }
    List<GeneralName> pdpSans = new ArrayList<>();
    pdpSans.add(new GeneralName(GeneralName.dNSName, "localhost"));
    pdpSans.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    pdpSans.add(new GeneralName(GeneralName.iPAddress, "::1"));
    for (String n : pdpNames) {
      pdpSans.add(
          IPAddress.isValid(n)
              ? new GeneralName(GeneralName.iPAddress, n)
              : new GeneralName(GeneralName.dNSName, n));
    }
    Credential pdp = leaf("pdp", "Portcullis PDP", pdpSans, KeyPurposeId.id_kp_serverAuth);
    Map<String, Credential> peps = new LinkedHashMap<>();
    for (String id : pepIds) {
      List<GeneralName> sans = new ArrayList<>();
      if (HOST_NAME.matcher(id).matches()) {
        sans.add(new GeneralName(GeneralName.dNSName, id));
      }
      peps.put(id, leaf("pep-" + id, id, sans, KeyPurposeId.id_kp_clientAuth));
    }
    if (!generated.isEmpty()) {
      log.info(
          "generated development certificates in {} ({}); for development only: configure real"
              + " certificates in production",
          dir.toAbsolutePath(),
          String.join(", ", generated));
    }
    return new Pki(dir, caCrt, pdp, peps);
  }

  private Credential leaf(String file, String cn, List<GeneralName> sans, KeyPurposeId purpose)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    Path crt = dir.resolve(file + ".crt");
    Path key = dir.resolve(file + ".key");
    if (complete(file, crt, key)) {
      X509Certificate held = readCertificate(crt);
      try {
        held.verify(caCert.getPublicKey());
      } catch (GeneralSecurityException e) {
        throw new IOException(
            crt
                + " was not issued by "
                + dir.resolve("ca.crt")
                + " (was the CA made again?): remove "
                + crt.getFileName()
                + " and "
                + key.getFileName()
                + " to have them issued by the current CA",
            e);
      }
      List<String> missing = missingNames(held, sans);
      if (missing.isEmpty()) {
        return new Credential(crt, key);
      }
      // Made for other names (an earlier run listened on localhost): issued again by the same CA,
      // so whoever trusts it still does, naming what is asked for now.
      log.info(
          "development certificate {} did not name {}: issued again by the same CA, naming {}",
          crt.toAbsolutePath(),
          String.join(", ", missing),
          String.join(", ", names(sans)));
    }
    KeyPair kp = keyPair();
    X509Certificate cert =
        certificate(caCert, caKey, name(cn), kp.getPublic(), sans, purpose, LEAF_LIFETIME);
    write(key, pem(new JcaPKCS8Generator(kp.getPrivate(), null)));
    write(crt, pem(cert) + pem(caCert));
    generated.add(file);
    return new Credential(crt, key);
  }

  /** The names of {@code sans} (as text) that {@code held} does not carry. */
  private static List<String> missingNames(X509Certificate held, List<GeneralName> sans)
      throws IOException {
    java.util.Set<String> has = new java.util.HashSet<>();
    try {
      Collection<List<?>> present = held.getSubjectAlternativeNames();
      if (present != null) {
        for (List<?> san : present) {
          has.add(canonical(String.valueOf(san.get(1))));
        }
      }
    } catch (java.security.cert.CertificateParsingException e) {
      throw new IOException("development certificate: unreadable subject alternative names", e);
    }
    List<String> missing = new ArrayList<>();
    for (String n : names(sans)) {
      if (!has.contains(canonical(n))) {
        missing.add(n);
      }
    }
    return missing;
  }

  private static List<String> names(List<GeneralName> sans) {
    List<String> out = new ArrayList<>();
    for (GeneralName g : sans) {
      out.add(
          g.getTagNo() == GeneralName.iPAddress
              ? ipText(org.bouncycastle.asn1.DEROctetString.getInstance(g.getName()).getOctets())
              : g.getName().toString());
    }
    return out;
  }

  private static String ipText(byte[] octets) {
    try {
      return java.net.InetAddress.getByAddress(octets).getHostAddress();
    } catch (java.net.UnknownHostException e) {
      return org.bouncycastle.util.encoders.Hex.toHexString(octets);
    }
  }

  /** An address in one text form ("::1" and "0:0:0:0:0:0:0:1" alike), a name in lower case. */
  private static String canonical(String name) {
    if (IPAddress.isValid(name)) {
      try {
        return java.net.InetAddress.getByName(name).getHostAddress();
      } catch (java.net.UnknownHostException e) {
        return name;
      }
    }
    return name.toLowerCase(java.util.Locale.ROOT);
  }

  private static X509Certificate certificate(
      X509Certificate caCert,
      PrivateKey caKey,
      X500Name subject,
      PublicKey publicKey,
      List<GeneralName> sans,
      KeyPurposeId purpose,
      Duration lifetime)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    Instant now = Instant.now();
    X509v3CertificateBuilder b =
        new JcaX509v3CertificateBuilder(
            caCert, serial(), from(now), Date.from(now.plus(lifetime)), subject, publicKey);
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    b.addExtension(
        Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
    b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
    b.addExtension(
        Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(publicKey));
    b.addExtension(
        Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert));
    if (!sans.isEmpty()) {
      b.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(sans.toArray(GeneralName[]::new)));
    }
    return sign(b, caKey);
  }

  /**
   * Issues a PEP certificate (subject O=Portcullis development, CN = the PEP id, also a dNSName
   * when the id is a host name; extendedKeyUsage clientAuth) for {@code publicKey} under a CA: what
   * enrolment with a one-time credential hands a new PEP.
   */
  public static X509Certificate issuePepCertificate(
      X509Certificate caCert,
      PrivateKey caKey,
      String pepId,
      PublicKey publicKey,
      Duration lifetime)
      throws GeneralSecurityException {
    List<GeneralName> sans = new ArrayList<>();
    if (HOST_NAME.matcher(pepId).matches()) {
      sans.add(new GeneralName(GeneralName.dNSName, pepId));
    }
    try {
      return certificate(
          caCert, caKey, name(pepId), publicKey, sans, KeyPurposeId.id_kp_clientAuth, lifetime);
    } catch (IOException | OperatorCreationException e) {
      throw new GeneralSecurityException("cannot issue a certificate for " + pepId + ": " + e, e);
    }
  }

  /** Reads a PEM certificate. */
  public static X509Certificate certificateFile(Path file)
      throws IOException, GeneralSecurityException {
    return readCertificate(file);
  }

  /** Reads a PKCS#8 PEM private key. */
  public static PrivateKey privateKeyFile(Path file) throws IOException {
    return readKey(file);
  }

  /**
   * A TLS client context that trusts {@code pki}'s CA and presents PEP {@code pepId}'s certificate
   * (null: none): a client of an HTTPS endpoint that takes client certificates (the PCMM gates API,
   * the PDP's control interface), in tests and demonstrations.
   */
  public static javax.net.ssl.SSLContext clientContext(Pki pki, String pepId)
      throws IOException, GeneralSecurityException {
    Credential c = pepId == null ? null : pki.peps().get(pepId);
    return TlsFiles.clientContext(
        c == null ? null : c.certificateChain(),
        c == null ? null : c.privateKey(),
        pki.caCertificate());
  }

  /** The PEM text of a certificate or of a private key (PKCS#8). */
  public static String toPem(Object certificateOrKey) throws IOException {
    return certificateOrKey instanceof PrivateKey
        ? pem(new JcaPKCS8Generator((PrivateKey) certificateOrKey, null))
        : pem(certificateOrKey);
  }

  /** Both files there: reuse; neither: make; one without the other: refuse to guess. */
  private boolean complete(String what, Path crt, Path key) throws IOException {
    boolean c = Files.exists(crt);
    boolean k = Files.exists(key);
    if (c != k) {
      throw new IOException(
          dir
              + " holds "
              + (c ? crt.getFileName() : key.getFileName())
              + " without "
              + (c ? key.getFileName() : crt.getFileName())
              + ": remove the "
              + what
              + " files to have them made again");
    }
    return c;
  }

  private void privateDirectory() throws IOException {
    OwnedFile.privateDirectory(dir, "development PKI directory");
  }

  /** Owner-only, whole or not at all: a crash never leaves half a PEM file. */
  private void write(Path target, String content) throws IOException {
    DurableFiles.write(target, content.getBytes(StandardCharsets.US_ASCII));
  }

  private static KeyPair keyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key)
      throws GeneralSecurityException, OperatorCreationException {
    return new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
  }

  private static X500Name name(String cn) {
    return new X500NameBuilder(BCStyle.INSTANCE)
        .addRDN(BCStyle.O, "Portcullis development")
        .addRDN(BCStyle.CN, cn)
        .build();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  /** An hour back, so that a peer whose clock is a little behind accepts the certificate. */
  private static Date from(Instant now) {
    return Date.from(now.minus(Duration.ofHours(1)));
  }

  private static String pem(Object o) throws IOException {
    Writer w = new StringWriter();
    try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
      pw.writeObject(o);
    }
    return w.toString();
  }

  private static X509Certificate readCertificate(Path file)
      throws IOException, GeneralSecurityException {
    try (var in = Files.newInputStream(file)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  static PrivateKey readKey(Path file) throws IOException {
    return readKey(file, null);
  }

  /** Reads a PKCS#8 PEM key as a key of {@code provider} (null: the default providers'). */
  public static PrivateKey readKey(Path file, Provider provider) throws IOException {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser p = new PEMParser(r)) {
      Object o = p.readObject();
      if (!(o instanceof PrivateKeyInfo info)) {
        throw new IOException(file + " does not hold a PKCS#8 private key");
      }
      JcaPEMKeyConverter c = new JcaPEMKeyConverter();
      if (provider != null) {
        c.setProvider(provider);
      }
      return c.getPrivateKey(info);
    }
  }
}
