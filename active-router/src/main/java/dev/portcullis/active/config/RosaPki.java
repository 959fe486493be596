package dev.portcullis.active.config;

import dev.portcullis.support.pki.DevCertificates;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The domain's credentials, from the development PKI ({@link DevCertificates}): one server
 * certificate for the Authorization Server and the Code Server (names localhost and 127.0.0.1),
 * client certificates for each router, each user and the Authorization Server, all under one
 * private CA. TLS 1.3 only, through the JDK's provider.
 */
public final class RosaPki {
  private final DevCertificates.Pki pki;

  private RosaPki(DevCertificates.Pki pki) {
    this.pki = pki;
  }

  /** Makes what is missing of the PKI for a domain, and opens it. */
  public static RosaPki ensure(RosaConfig config) throws IOException {
    return new RosaPki(
        DevCertificates.ensure(
            config.pkiDirectory(), List.of("localhost", "127.0.0.1"), config.clientIdentities()));
  }

  /** A server context; with {@code clientAuth}, clients must present a certificate of the CA. */
  public SSLContext serverContext(boolean clientAuth) throws IOException {
    var b =
        SslContextBuilder.forServer(
                pki.pdp().certificateChain().toFile(), pki.pdp().privateKey().toFile())
            .trustManager(pki.caCertificate().toFile())
            .clientAuth(clientAuth ? ClientAuth.REQUIRE : ClientAuth.NONE);
    return jdk(b);
  }

  /** A client context for an identity (a router, a user, {@code auth-server}), or none. */
  public SSLContext clientContext(String identity) throws IOException {
    var b = SslContextBuilder.forClient().trustManager(pki.caCertificate().toFile());
    if (identity != null) {
      DevCertificates.Credential c = credential(identity);
      b.keyManager(c.certificateChain().toFile(), c.privateKey().toFile());
    }
    return jdk(b);
  }

  private static SSLContext jdk(SslContextBuilder b) throws IOException {
    try {
      return ((JdkSslContext) b.sslProvider(SslProvider.JDK).protocols("TLSv1.3").build())
          .context();
    } catch (SSLException e) {
      throw new IOException("TLS context: " + e.getMessage(), e);
    }
  }

  private DevCertificates.Credential credential(String identity) {
    DevCertificates.Credential c = pki.peps().get(identity);
    if (c == null) {
      throw new IllegalArgumentException(
          "no certificate for '"
              + identity
              + "' in "
              + pki.directory()
              + " (known: "
              + pki.peps().keySet()
              + ")");
    }
    return c;
  }

  /** The private key of a client identity (a user signs service requests with it). */
  public PrivateKey privateKey(String identity) throws IOException {
    return DevCertificates.privateKeyFile(credential(identity).privateKey());
  }

  /** The end-entity certificate of a client identity. */
  public X509Certificate certificate(String identity) throws IOException {
    return certificate(credential(identity).certificateChain());
  }

  /** The certificate chain (end entity first) of the servers. */
  public List<X509Certificate> serverChain() throws IOException {
    return chain(pki.pdp().certificateChain());
  }

  public PrivateKey serverKey() throws IOException {
    return DevCertificates.privateKeyFile(pki.pdp().privateKey());
  }

  public X509Certificate caCertificate() throws IOException {
    return certificate(pki.caCertificate());
  }

  private static X509Certificate certificate(Path file) throws IOException {
    try {
      return DevCertificates.certificateFile(file);
    } catch (GeneralSecurityException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
  }

  private static List<X509Certificate> chain(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
          .map(c -> (X509Certificate) c)
          .toList();
    } catch (CertificateException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
  }
}
