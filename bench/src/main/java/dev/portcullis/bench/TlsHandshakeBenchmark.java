package dev.portcullis.bench;

import dev.portcullis.cops.tls.DevCertificates;
import dev.portcullis.cops.tls.InMemoryTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Provider;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of a TLS handshake per engine, in memory (no sockets: the handshake's cryptography and
 * state machines only), so that the engine COPS over TLS uses by default is picked from figures.
 * Both sides use the same engine, the development PKI (ECDSA P-256), mutual authentication as a PDP
 * and PEP would, and TLS 1.3 or 1.2.
 *
 * <p>Client sessions are cached per peer host and port. {@code full} names a new port every time,
 * so the client has nothing to offer and both sides run the whole handshake; {@code resumed} names
 * the same port every time, so the client offers the session (TLS 1.2) or ticket (TLS 1.3) it
 * cached from the previous handshake. The ratio of the two, in one run, is what session reuse saves
 * with that engine (about 1 if the engine does not really resume).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class TlsHandshakeBenchmark {
  // Bouncy Castle's JSSE is not measured: the package registry here serves no bctls release
  // matching the pinned bcprov (1.86), and BC does not support mixing releases.
  @Param({"JDK", "Conscrypt", "OpenSSL"})
  public String engine;

  @Param({"TLSv1.3", "TLSv1.2"})
  public String protocol;

  private Path dir;
  private DevCertificates.Pki pki;
  private SslContext server;
  private SslContext client;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    dir = Files.createTempDirectory("portcullis-tls-bench");
    pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("gw-1"));
    if (engine.equals("OpenSSL") && !OpenSsl.isAvailable()) {
      throw new IllegalStateException(
          "the OpenSSL engine (netty-tcnative) is not usable here: "
              + OpenSsl.unavailabilityCause());
    }
    server = serverContext();
    client = clientContext();
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    ReferenceCountUtil.release(server);
    ReferenceCountUtil.release(client);
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private SslContextBuilder engine(SslContextBuilder b) {
    return switch (engine) {
      case "JDK" -> b.sslProvider(SslProvider.JDK);
      case "Conscrypt" -> b.sslProvider(SslProvider.JDK).sslContextProvider(conscrypt());
      case "OpenSSL" -> b.sslProvider(SslProvider.OPENSSL);
      default -> throw new IllegalArgumentException("unknown engine " + engine);
    };
  }

  private static Provider conscrypt() {
    return org.conscrypt.Conscrypt.newProvider();
  }

  /**
   * The CA as trust anchor. Conscrypt gets its own PKIX trust manager: under TLS 1.3 it asks the
   * trust manager to check the peer with auth type "GENERIC", which the JDK's rejects.
   */
  private SslContextBuilder trust(SslContextBuilder b) throws Exception {
    if (!engine.equals("Conscrypt")) {
      return b.trustManager(pki.caCertificate().toFile());
    }
    java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    try (var in = Files.newInputStream(pki.caCertificate())) {
      ks.setCertificateEntry(
          "ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    javax.net.ssl.TrustManagerFactory tmf =
        javax.net.ssl.TrustManagerFactory.getInstance("PKIX", conscrypt());
    tmf.init(ks);
    return b.trustManager(tmf);
  }

  private SslContext serverContext() throws Exception {
    return trust(
            engine(
                SslContextBuilder.forServer(
                    pki.pdp().certificateChain().toFile(), pki.pdp().privateKey().toFile())))
        .clientAuth(ClientAuth.REQUIRE)
        .protocols(protocol)
        .build();
  }

  private SslContext clientContext() throws Exception {
    return trust(engine(SslContextBuilder.forClient()))
        .keyManager(
            pki.peps().get("gw-1").certificateChain().toFile(),
            pki.peps().get("gw-1").privateKey().toFile())
        .protocols(protocol)
        .endpointIdentificationAlgorithm("HTTPS")
        .build();
  }

  private int nextPort = 1;

  private static void handshake(SslContext client, SslContext server, int port) throws Exception {
    SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, "localhost", port);
    SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
    try {
      InMemoryTls.handshake(c, s);
    } finally {
      ReferenceCountUtil.release(c);
      ReferenceCountUtil.release(s);
    }
  }

  @Benchmark
  public void full() throws Exception {
    handshake(client, server, 10_000 + (nextPort++ % 50_000));
  }

  @Benchmark
  public void resumed() throws Exception {
    handshake(client, server, 3288);
  }
}
