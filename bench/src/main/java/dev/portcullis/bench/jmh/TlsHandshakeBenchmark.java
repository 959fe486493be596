package dev.portcullis.bench.jmh;

import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.cops.tls.InMemoryTls;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.pki.DevCertificates;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Files;
import java.nio.file.Path;
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
  /** A {@link TlsEngine} config name. */
  @Param({"openssl", "jdk", "conscrypt", "bouncycastle"})
  public String engine;

  @Param({"TLSv1.3", "TLSv1.2"})
  public String protocol;

  private Path dir;
  private CopsTls server;
  private CopsTls client;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    Programs.routeJulToSlf4j(); // Bouncy Castle's JSSE logs through JUL: into logback, at WARN
    dir = Files.createTempDirectory("portcullis-tls-bench");
    Path pki = dir.resolve("pki");
    DevCertificates.Pki p = DevCertificates.ensure(pki, List.of(), List.of("gw-1"));
    TlsEngine e = TlsEngine.ofName(engine);
    if (e.unavailabilityCause() != null) {
      throw new IllegalStateException(
          "TLS engine " + engine + " is not usable here: " + e.unavailabilityCause());
    }
    // The contexts a PDP and a PEP run with (dev.portcullis.cops.tls.CopsTls).
    TlsSettings s = new TlsSettings(e, List.of(protocol), null, null, null, pki);
    server =
        CopsTls.server(
            s,
            p.pdp().certificateChain(),
            p.pdp().privateKey(),
            p.caCertificate(),
            ClientAuth.REQUIRE,
            3600,
            0);
    DevCertificates.Credential c = p.peps().get("gw-1");
    client = CopsTls.client(s, c.certificateChain(), c.privateKey(), p.caCertificate());
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    server.close();
    client.close();
    Scratch.delete(dir);
  }

  private int nextPort = 1;

  private void handshake(int port) throws Exception {
    SSLEngine c = client.context().newEngine(ByteBufAllocator.DEFAULT, "localhost", port);
    SSLEngine s = server.newServerEngine(ByteBufAllocator.DEFAULT);
    try {
      InMemoryTls.handshake(c, s);
    } finally {
      ReferenceCountUtil.release(c);
      ReferenceCountUtil.release(s);
    }
  }

  @Benchmark
  public void full() throws Exception {
    handshake(10_000 + (nextPort++ % 50_000));
  }

  @Benchmark
  public void resumed() throws Exception {
    handshake(3288);
  }
}
