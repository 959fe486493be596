package dev.portcullis.cops.tls;

import dev.portcullis.support.pki.DevCertificates;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.internal.tcnative.SSL;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Provider;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.jsse.provider.BouncyCastleJsseProvider;

/**
 * One side's TLS for COPS (RFC 4261): a Netty {@link SslContext} on the configured engine with TLS
 * 1.3/1.2 and modern suites only, a trust manager that knows which handshakes verified a
 * certificate and which resumed a session, and what to report about a finished handshake.
 *
 * <p>RFC 4261 section 8's mandatory TLS_RSA_WITH_3DES_EDE_CBC_SHA is deliberately not offered: see
 * docs/tls.md.
 *
 * <p>Thread-safe; one per PDP or PEP, shared by its connections. {@link #close} releases the native
 * context of the OpenSSL engine.
 */
public final class CopsTls implements AutoCloseable {
  /**
   * TLS 1.3 suites, then TLS 1.2 ECDHE with AEAD only. Names are IANA/JSSE ones; Netty maps them
   * for OpenSSL, and each engine keeps those it supports.
   */
  public static final List<String> CIPHER_SUITES =
      List.of(
          "TLS_AES_128_GCM_SHA256",
          "TLS_AES_256_GCM_SHA384",
          "TLS_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
          "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
          "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

  /** What one finished handshake was. */
  public record Handshake(
      String protocol,
      String cipherSuite,
      String sessionId,
      Boolean resumed,
      X509Certificate peer) {
    /** "full", "resumed" or "unknown" (one-way authentication on an engine that cannot tell). */
    public String kind() {
      return resumed == null ? "unknown" : resumed ? "resumed" : "full";
    }
  }

  private final TlsEngine engine;
  private final SslContext context;
  private final TrackingTrustManager tracking;
  private final boolean server;

  private CopsTls(
      TlsEngine engine, SslContext context, TrackingTrustManager tracking, boolean server) {
    this.engine = engine;
    this.context = context;
    this.tracking = tracking;
    this.server = server;
  }

  /**
   * A PDP's context.
   *
   * @param s the TLS engine, protocols and cipher suites
   * @param chain the PDP's certificate chain (PEM)
   * @param key the PDP's private key (PEM)
   * @param trust the CA certificates that issue PEP certificates
   * @param auth whether a PEP must present a certificate
   * @param sessionTimeoutSeconds how long the PDP keeps a session resumable (0: engine default)
   * @param sessionCacheSize how many sessions the PDP keeps resumable (0: engine default)
   */
  public static CopsTls server(
      TlsSettings s,
      Path chain,
      Path key,
      Path trust,
      ClientAuth auth,
      long sessionTimeoutSeconds,
      long sessionCacheSize)
      throws SSLException {
    TrackingTrustManager t = tracking(s.engine(), trust);
    SslContextBuilder b =
        (s.engine() == TlsEngine.BOUNCY_CASTLE
                ? SslContextBuilder.forServer(bcKeyManager(chain, key))
                : SslContextBuilder.forServer(chain.toFile(), key.toFile()))
            .clientAuth(auth);
    if (sessionTimeoutSeconds > 0) {
      b.sessionTimeout(sessionTimeoutSeconds);
    }
    if (sessionCacheSize > 0) {
      b.sessionCacheSize(sessionCacheSize);
    }
    return new CopsTls(s.engine(), common(b, s, t).build(), t, true);
  }

  /**
   * A PEP's context: checks the PDP's certificate against {@code trust} and its name (RFC 2818
   * rules, subjectAltName dNSName or iPAddress) against the host connected to; presents {@code
   * chain} when the PDP asks for a client certificate. Sessions are cached by PDP host and port, so
   * a reconnect to the same PDP offers the last session for resumption.
   */
  public static CopsTls client(TlsSettings s, Path chain, Path key, Path trust)
      throws SSLException {
    TrackingTrustManager t = tracking(s.engine(), trust);
    SslContextBuilder b = SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS");
    if (chain != null && s.engine() == TlsEngine.BOUNCY_CASTLE) {
      b.keyManager(bcKeyManager(chain, key));
    } else if (chain != null) {
      b.keyManager(chain.toFile(), key.toFile());
    }
    return new CopsTls(s.engine(), common(b, s, t).build(), t, false);
  }

  /**
   * BCJSSE selects credentials through its own key manager (given the JDK's it refuses ECDSA
   * handshakes with handshake_failure).
   */
  private static KeyManagerFactory bcKeyManager(Path chain, Path key) throws SSLException {
    try {
      List<Certificate> certs = new ArrayList<>();
      try (InputStream in = Files.newInputStream(chain)) {
        certs.addAll(CertificateFactory.getInstance("X.509").generateCertificates(in));
      }
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      char[] none = new char[0];
      ks.setKeyEntry(
          "own",
          DevCertificates.readKey(key, Providers.BC),
          none,
          certs.toArray(new Certificate[0]));
      KeyManagerFactory kmf = KeyManagerFactory.getInstance("PKIX", Providers.BCJSSE);
      kmf.init(ks, none);
      return kmf;
    } catch (IOException | GeneralSecurityException e) {
      throw new SSLException(chain + ", " + key + ": cannot load: " + e.getMessage(), e);
    }
  }

  private static SslContextBuilder common(
      SslContextBuilder b, TlsSettings s, TrackingTrustManager t) {
    switch (s.engine()) {
      case OPENSSL:
        b.sslProvider(SslProvider.OPENSSL);
        break;
      case JDK:
        b.sslProvider(SslProvider.JDK);
        break;
      case CONSCRYPT:
        b.sslProvider(SslProvider.JDK).sslContextProvider(Providers.CONSCRYPT);
        break;
      case BOUNCY_CASTLE:
        b.sslProvider(SslProvider.JDK).sslContextProvider(Providers.BCJSSE);
        break;
      default:
        throw new AssertionError(s.engine());
    }
    return b.trustManager(t)
        .protocols(s.protocols())
        .ciphers(CIPHER_SUITES, SupportedCipherSuiteFilter.INSTANCE);
  }

  /** Providers made once: building one loads native code or registers many services. */
  private static final class Providers {
    static final Provider CONSCRYPT = org.conscrypt.Conscrypt.newProvider();
    // BCJSSE does its cryptography through a JCA provider it is given: Bouncy Castle's own.
    static final Provider BC = new BouncyCastleProvider();
    static final Provider BCJSSE = new BouncyCastleJsseProvider(BC);
  }

  private static TrackingTrustManager tracking(TlsEngine engine, Path trust) throws SSLException {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      int n = 0;
      try (InputStream in = Files.newInputStream(trust)) {
        for (var c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
          ks.setCertificateEntry("ca-" + n++, c);
        }
      }
      if (n == 0) {
        throw new SSLException(trust + ": no certificates (expected: PEM CA certificates)");
      }
      // Conscrypt gets its own PKIX trust manager: under TLS 1.3 it asks the trust manager to
      // check the peer with auth type "GENERIC", which the JDK's rejects.
      TrustManagerFactory tmf =
          engine == TlsEngine.CONSCRYPT
              ? TrustManagerFactory.getInstance("PKIX", Providers.CONSCRYPT)
              : TrustManagerFactory.getInstance("PKIX");
      tmf.init(ks);
      for (TrustManager tm : tmf.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager) {
          return new TrackingTrustManager((X509ExtendedTrustManager) tm);
        }
      }
      throw new SSLException("no X.509 trust manager for " + trust);
    } catch (IOException | GeneralSecurityException e) {
      throw new SSLException(trust + ": cannot read trusted certificates: " + e.getMessage(), e);
    }
  }

  public TlsEngine engine() {
    return engine;
  }

  /** The Netty context. */
  public SslContext context() {
    return context;
  }

  /** A handler for the PDP side of an accepted connection. */
  public SslHandler newServerHandler(ByteBufAllocator alloc) {
    if (!server) {
      throw new IllegalStateException("a PEP context");
    }
    SslHandler h = context.newHandler(alloc);
    prepareServerEngine(h.engine());
    return h;
  }

  /**
   * An engine for the PDP side of a connection, set up as {@link #newServerHandler}'s: for
   * handshakes without a channel (in memory, {@link InMemoryTls}).
   */
  public SSLEngine newServerEngine(ByteBufAllocator alloc) {
    if (!server) {
      throw new IllegalStateException("a PEP context");
    }
    SSLEngine e = context.newEngine(alloc);
    prepareServerEngine(e);
    return e;
  }

  private void prepareServerEngine(SSLEngine e) {
    if (engine == TlsEngine.CONSCRYPT) {
      // Conscrypt sets BoringSSL's SSL_OP_NO_TICKET unless told otherwise, and under TLS 1.3 a
      // server without tickets sends no NewSessionTicket: no client could ever resume (measured:
      // 0 of 111 with every client engine, while Conscrypt's client resumed against the others).
      org.conscrypt.Conscrypt.setUseSessionTickets(e, true);
    }
  }

  /** A handler for a connection to the PDP at {@code host}, {@code port} (names the session). */
  public SslHandler newClientHandler(ByteBufAllocator alloc, String host, int port) {
    if (server) {
      throw new IllegalStateException("a PDP context");
    }
    return context.newHandler(alloc, host, port);
  }

  /** Describes the finished handshake of {@code h}. Call once per handshake. */
  public Handshake describe(SslHandler h) {
    SSLEngine e = h.engine();
    SSLSession s = e.getSession();
    return new Handshake(
        s.getProtocol(), s.getCipherSuite(), hex(s.getId()), resumed(e), peerCertificate(s));
  }

  private Boolean resumed(SSLEngine e) {
    if (e instanceof ReferenceCountedOpenSslEngine) {
      ReferenceCountedOpenSslEngine o = (ReferenceCountedOpenSslEngine) e;
      synchronized (o) {
        tracking.forget(e);
        long ssl = o.sslPointer();
        return ssl == 0 ? null : SSL.isSessionReused(ssl);
      }
    }
    if (engine == TlsEngine.CONSCRYPT) {
      // Conscrypt hands its trust manager the engine inside the one SslHandler holds, so Netty
      // cannot match them and reports every handshake with a peer certificate as resumed; what
      // was verified, on the inner engine, tells.
      SSLEngine inner = ConscryptEngines.delegate(e);
      tracking.forget(e);
      if (inner == null) {
        return null;
      }
      boolean verified = tracking.verifiedOnce(inner);
      boolean peerCertificate = peerCertificate(e.getSession()) != null;
      return verified ? Boolean.FALSE : peerCertificate ? Boolean.TRUE : null;
    }
    return tracking.outcome(e);
  }

  private static X509Certificate peerCertificate(SSLSession s) {
    try {
      var chain = s.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate
          ? (X509Certificate) chain[0]
          : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /**
   * The subjectAltName dNSName (lower case) and iPAddress (canonical text) entries of {@code c},
   * the names RFC 4261 section 7 identifies a PDP by.
   */
  private static final Pattern CERTIFICATE_ALERT =
      Pattern.compile(
          "(?i)(bad_certificate|certificate_unknown|unknown_ca|certificate_required"
              + "|certificate_expired|certificate_revoked|unsupported_certificate"
              + "|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA|ALERT_CERTIFICATE_REQUIRED"
              + "|ALERT_CERTIFICATE_UNKNOWN|ALERT_CERTIFICATE_EXPIRED)");

  private static final Pattern INTERNAL_ALERT =
      Pattern.compile("(?i)(ALERT_INTERNAL_ERROR|Received fatal alert: internal_error)");

  /**
   * What a failed TLS handshake or connection means, for a log line or an error a user reads: a
   * certificate this side refused (and the validator's reason), a certificate the peer refused (and
   * its alert), or else the most specific message in the cause chain — never an engine's generic
   * "General OpenSslEngine problem" alone.
   */
  public static String failureReason(Throwable t) {
    String specific = null;
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      String m = c.getMessage() == null ? "" : c.getMessage().lines().findFirst().orElse("");
      if (c instanceof CertificateException || c instanceof CertPathValidatorException) {
        return "certificate refused: " + (m.isEmpty() ? c.getClass().getSimpleName() : m);
      }
      Matcher alert = CERTIFICATE_ALERT.matcher(m);
      if (alert.find()) {
        return "certificate refused by the peer (TLS alert "
            + alert.group(1).toLowerCase(Locale.ROOT)
            + ")";
      }
      if (INTERNAL_ALERT.matcher(m).find()) {
        // what a JDK or BoringSSL client sends when its own check fails (a name the certificate
        // lacks, issue 47): the peer's log has the reason, this side only the alert
        return "the peer ended the handshake (TLS alert internal_error): its log says why, often a"
            + " certificate it refused (a name it lacks)";
      }
      if (!m.isEmpty() && !m.startsWith("General OpenSslEngine problem")) {
        specific = m;
      }
    }
    return specific != null ? specific : String.valueOf(t);
  }

  public static List<String> subjectAltNames(X509Certificate c) {
    List<String> names = new ArrayList<>();
    try {
      var sans = c.getSubjectAlternativeNames();
      if (sans != null) {
        for (List<?> san : sans) {
          int type = (Integer) san.get(0);
          if (type == 2) {
            names.add(((String) san.get(1)).toLowerCase(Locale.ROOT));
          } else if (type == 7) {
            names.add(canonicalAddress((String) san.get(1)));
          }
        }
      }
    } catch (CertificateParsingException e) {
      // an unparsable extension names nothing
    }
    return names;
  }

  /** The subject's common name (CN), or null. */
  public static String commonName(X509Certificate c) {
    try {
      var dn = new LdapName(c.getSubjectX500Principal().getName());
      for (var rdn : dn.getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return String.valueOf(rdn.getValue());
        }
      }
    } catch (InvalidNameException e) {
      // none
    }
    return null;
  }

  /**
   * A literal IPv4 or IPv6 address in canonical text (so "::1" and "0:0:0:0:0:0:0:1" compare
   * equal), a host name in lower case. Never resolves names.
   */
  public static String canonicalAddress(String name) {
    if (name.matches("[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
      try {
        return InetAddress.getByName(name).getHostAddress();
      } catch (UnknownHostException e) {
        return name;
      }
    }
    return name.toLowerCase(Locale.ROOT);
  }

  private static String hex(byte[] id) {
    return id == null || id.length == 0 ? "" : HexFormat.of().formatHex(id);
  }

  @Override
  public void close() {
    ReferenceCountUtil.release(context);
  }
}
