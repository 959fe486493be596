package dev.portcullis.bench.jmh;

import dev.portcullis.crypto.spi.CryptoProviderFactory;
import java.nio.ByteBuffer;
import java.security.Provider;
import java.util.ServiceLoader;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
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
 * AES-128 encryption of one packet per provider and mode, as a sender does it: a fresh IV per
 * packet ({@code init}), then {@code doFinal} into a preallocated array, or between direct buffers.
 * Providers come from the registry's factories; one that cannot load, or lacks the transformation,
 * fails its setup with the reason and is skipped — never measured as another.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class AesProviderBenchmark {
  @Param({"SunJCE", "BC", "Conscrypt", "ACCP", "PortcullisNative"})
  public String provider;

  @Param({"AES/GCM/NoPadding", "AES/CTR/NoPadding", "AES/CBC/PKCS5Padding"})
  public String transformation;

  @Param({"64", "256", "1024", "2048", "16384"})
  public int size;

  /** {@code array}: byte arrays; {@code direct}: direct ByteBuffers, as a network stack has. */
  @Param({"array", "direct"})
  public String buffer;

  private Cipher cipher;
  private SecretKeySpec key;
  private byte[] iv;
  private ByteBuffer counter;
  private byte[] packet;
  private byte[] out;
  private ByteBuffer in;
  private ByteBuffer outBuffer;
  private boolean gcm;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    CryptoProviderFactory factory = null;
    for (CryptoProviderFactory f : ServiceLoader.load(CryptoProviderFactory.class)) {
      if (f.name().equals(provider)) {
        factory = f;
      }
    }
    if (factory == null) {
      throw new IllegalStateException("no provider factory named " + provider);
    }
    Provider p = factory.create();
    cipher = Cipher.getInstance(transformation, p);
    if (!cipher.getProvider().getName().equals(p.getName())) {
      throw new IllegalStateException(transformation + " came from " + cipher.getProvider());
    }
    gcm = transformation.startsWith("AES/GCM");
    SplittableRandom rnd = new SplittableRandom(1);
    byte[] k = new byte[16];
    rnd.nextBytes(k);
    key = new SecretKeySpec(k, "AES");
    iv = new byte[gcm ? 12 : 16];
    counter = ByteBuffer.wrap(iv);
    packet = new byte[size];
    rnd.nextBytes(packet);
    out = new byte[size + 16];
    in = ByteBuffer.allocateDirect(size).put(packet).flip();
    outBuffer = ByteBuffer.allocateDirect(size + 16);
  }

  @Benchmark
  public int encrypt() throws Exception {
    counter.putLong(4, counter.getLong(4) + 1); // a new IV per packet, as GCM requires
    cipher.init(
        Cipher.ENCRYPT_MODE, key, gcm ? new GCMParameterSpec(128, iv) : new IvParameterSpec(iv));
    if (buffer.equals("direct")) {
      in.position(0);
      outBuffer.clear();
      return cipher.doFinal(in, outBuffer);
    }
    return cipher.doFinal(packet, 0, packet.length, out, 0);
  }
}
