package dev.portcullis.bench.jmh;

import dev.portcullis.crypto.spi.CryptoProviderFactory;
import java.security.Provider;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The ROSA paper (Alarcos et al.), section 6.1: what getting a crypto engine ready costs per
 * provider — {@code getInstance} and {@code init} with a key, every time, as code that does not
 * keep its engines pays per packet. (The registry keeps them: see {@link FirstUseBenchmark} for its
 * first use.)
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class ProviderInitBenchmark {
  @Param({"SunJCE", "BC", "Conscrypt", "ACCP", "PortcullisNative"})
  public String provider;

  @Param({"HmacSHA256", "AES/GCM/NoPadding"})
  public String algorithm;

  private Provider p;
  private SecretKeySpec key;
  private GCMParameterSpec iv;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    for (CryptoProviderFactory f : ServiceLoader.load(CryptoProviderFactory.class)) {
      if (f.name().equals(provider)) {
        p = f.create(); // throws with the reason when it cannot load here: skipped, not faked
      }
    }
    if (p == null) {
      throw new IllegalStateException("no provider factory named " + provider);
    }
    boolean mac = algorithm.startsWith("Hmac");
    key = new SecretKeySpec(new byte[mac ? 32 : 16], mac ? algorithm : "AES");
    iv = new GCMParameterSpec(128, new byte[12]);
    getInstanceAndInit(); // the algorithm is there, or setup fails saying so
  }

  @Benchmark
  public Object getInstanceAndInit() throws Exception {
    if (algorithm.startsWith("Hmac")) {
      Mac m = Mac.getInstance(algorithm, p);
      m.init(key);
      return m;
    }
    Cipher c = Cipher.getInstance(algorithm, p);
    c.init(Cipher.ENCRYPT_MODE, key, iv);
    return c;
  }
}
