package dev.portcullis.support.pki;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS client context from PEM files, with the JDK's own TLS: a certificate chain and its PKCS#8
 * key to present, and the CA certificates to trust. For a command that makes one HTTPS request and
 * exits ({@code pdp-server ctl}): Netty's context builder, by comparison, loads its native TLS and
 * initialises Bouncy Castle's whole provider first (5,621 classes loaded against 4,710): {@code ctl
 * status} took 2.8 s with it and 1.75 s with this, three runs each against a running PDP on this
 * 2-core machine, JDK 17 ({@code time java -jar pdp-server.jar ctl status ...}).
 */
public final class TlsFiles {
  private TlsFiles() {}

  /**
   * A client context presenting {@code certificateChain} (PEM, the leaf first) with {@code
   * privateKey} (PKCS#8 PEM), and trusting the CA certificates in {@code trusted} (PEM).
   *
   * @throws IOException if a file cannot be read or does not hold what it should (named)
   */
  public static SSLContext clientContext(Path certificateChain, Path privateKey, Path trusted)
      throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int n = 0;
    for (Certificate c : certificates(trusted)) {
      trust.setCertificateEntry("ca-" + n++, c);
    }
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    if (certificateChain != null) {
      keys.setKeyEntry(
          "client",
          DevCertificates.readKey(privateKey, null),
          new char[0],
          certificates(certificateChain).toArray(Certificate[]::new));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
    tmf.init(trust);
    KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX");
    kmf.init(keys, new char[0]);
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return ssl;
  }

  /** The PEM certificates in {@code file}, in order; at least one. */
  static java.util.List<Certificate> certificates(Path file)
      throws IOException, GeneralSecurityException {
    java.util.List<Certificate> all;
    try (InputStream in = Files.newInputStream(file)) {
      all = java.util.List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
    }
    if (all.isEmpty()) {
      throw new IOException(file + " holds no PEM certificate");
    }
    return all;
  }
}
