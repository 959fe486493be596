package dev.portcullis.bench.jmh;

import dev.portcullis.crypto.spi.CryptoProviderFactory;
import dev.portcullis.crypto.spi.JcaOneShotMac;
import dev.portcullis.crypto.spi.OneShotMac;
import java.nio.ByteBuffer;
import java.security.Provider;
import java.util.ServiceLoader;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.crypto.spec.SecretKeySpec;
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
 * One keyed HMAC over a packet, per provider, as the platform's hot path computes it: the key
 * schedule done once, then per packet update plus doFinal into a preallocated array ({@code Mac}
 * through {@link JcaOneShotMac}), or for {@code PortcullisNative-fast} the native provider's
 * one-call path ({@code CryptoProviderFactory.newOneShotMac}). Providers are made by the registry's
 * own factories; one that cannot load here fails its setup with the reason, and JMH reports and
 * skips it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class HmacProviderBenchmark {
  @Param({"SunJCE", "BC", "Conscrypt", "ACCP", "PortcullisNative", "PortcullisNative-fast"})
  public String provider;

  @Param({"HmacSHA256", "HmacSHA1", "HmacMD5", "HmacSHA512"})
  public String algorithm;

  @Param({"64", "256", "1024", "2048", "16384"})
  public int size;

  /** {@code array}: byte arrays; {@code direct}: a direct ByteBuffer, as a network stack has. */
  @Param({"array", "direct"})
  public String buffer;

  private ByteBuffer direct;

  private OneShotMac mac;
  private byte[] packet;
  private byte[] out;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    String name = provider.replace("-fast", "");
    CryptoProviderFactory factory = null;
    for (CryptoProviderFactory f : ServiceLoader.load(CryptoProviderFactory.class)) {
      if (f.name().equals(name)) {
        factory = f;
      }
    }
    if (factory == null) {
      throw new IllegalStateException("no provider factory named " + name + " on the class path");
    }
    Provider p = factory.create(); // throws with the reason when it cannot load here
    SplittableRandom rnd = new SplittableRandom(42);
    byte[] key = new byte[32];
    rnd.nextBytes(key);
    SecretKeySpec k = new SecretKeySpec(key, algorithm);
    mac =
        provider.endsWith("-fast")
            ? factory.newOneShotMac(p, algorithm, k)
            : JcaOneShotMac.create(p, algorithm, k);
    packet = new byte[size];
    rnd.nextBytes(packet);
    direct = ByteBuffer.allocateDirect(size).put(packet).flip();
    out = new byte[64];
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (mac != null) {
      mac.close();
    }
  }

  @Benchmark
  public byte[] mac() {
    if (buffer.equals("direct")) {
      direct.position(0);
      mac.mac(direct, out, 0);
    } else {
      mac.mac(packet, 0, packet.length, out, 0);
    }
    return out;
  }
}
