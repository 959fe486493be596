package dev.portcullis.bench.jmh;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.util.concurrent.TimeUnit;
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
 * The ROSA paper (Alarcos et al.), section 6.1: the first HMAC of a fresh JVM, with and without the
 * registry's pre-warming (which runs each chosen provider's engines once when the table is
 * published). One shot per JVM, many JVMs: each fork is a process starting cold.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(
    value = 15,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class FirstUseBenchmark {
  @Param({"SunJCE", "PortcullisNative"})
  public String provider;

  @Param({"true", "false"})
  public boolean prewarm;

  private CryptoRegistry registry;
  private final byte[] packet = new byte[256];
  private final byte[] out = new byte[32];

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    registry =
        CryptoRegistry.create(
            CryptoConfig.builder()
                .prefer(Algorithm.HMAC_SHA256, provider)
                .defaults("SunJCE", "SUN")
                .selfTest(true)
                .prewarm(prewarm)
                .build());
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    registry.close();
  }

  /** A key handle and its first MAC: what the first packet of a fresh process pays. */
  @Benchmark
  public byte[] firstMac() {
    MacKey k = registry.macKey(Algorithm.HMAC_SHA256, new byte[32]);
    k.compute(packet, 0, packet.length, out, 0);
    k.destroy();
    return out;
  }
}
