package dev.portcullis.bench;

import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.verify.Counters;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.crypto.Algorithm;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.config.CryptoConfig;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
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
 * The active router's per-packet cost (ROSA (Alarcos et al.), section 6): a bare HMAC-SHA-256 over
 * a packet's bytes, against the whole verification with the session key cached (structure,
 * validity, cache lookup, replay window, MAC in constant time) and with a cache miss (the session
 * key derived with HKDF from the cached Kci, then the same). Packets are sealed in advance in
 * direct buffers, as a router receives them; one ring of distinct sequence numbers, a fresh router
 * state (new session cache, no replay history) when it wraps: a router never accepts a sequence
 * number twice.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class ActiveVerifyBenchmark {
  private static final int RING = 1 << 13;

  /**
   * Packet bytes, header and tag included. 72 is the smallest IPv4 packet (56-byte header, empty
   * payload, 16-byte tag), standing in for the paper's 64.
   */
  @Param({"72", "256", "1024", "1500"})
  public int size;

  /**
   * Flows the packets interleave: 1, every packet the same flow as the last (the verifier's
   * last-flow shortcut); 64, each packet another flow's (the session cache's lookup every time).
   */
  @Param({"1", "64"})
  public int flows;

  /** The provider the registry puts first for HmacSHA256. */
  @Param({"PortcullisNative", "SunJCE"})
  public String provider;

  private CryptoRegistry registry;
  private FlowKeys keys;
  private Verifier verifier;
  private Counters counters;
  private ByteBuffer[] packets;
  private int tagLength;
  private byte[] tag;
  private MacKey bare;
  private byte[] kci;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    registry =
        CryptoRegistry.create(
            CryptoConfig.builder()
                .prefer(
                    Algorithm.HMAC_SHA256,
                    provider.equals("SunJCE")
                        ? new String[] {"SunJCE"}
                        : new String[] {provider, "SunJCE"})
                .defaults("SunJCE", "SUN")
                .build());
    if (!registry.providerFor(Algorithm.HMAC_SHA256).equals(provider)) {
      throw new IllegalStateException(
          provider + " cannot serve HmacSHA256 here: " + registry.status());
    }
    kci = new byte[32];
    new SplittableRandom(4).nextBytes(kci);
    long now = System.currentTimeMillis() / 1000;
    SessionKdf kdf = new SessionKdf(registry);
    MacKey prk = kdf.prepare(kci);
    PacketSealer[] sealers = new PacketSealer[flows];
    byte[] k = null;
    for (int f = 0; f < flows; f++) {
      Flow flow =
          new Flow(
              1000 + f,
              now - 60,
              now + 3600,
              InetAddress.getByName("192.0.2.1"),
              InetAddress.getByName("198.51.100.7"),
              2);
      k = kdf.macKey(prk, flow, MacAlgorithm.HMAC_SHA256_128);
      sealers[f] = new PacketSealer(registry, flow, 7, MacAlgorithm.HMAC_SHA256_128, k, null);
    }
    prk.destroy();
    int header = 56;
    int tagLen = MacAlgorithm.HMAC_SHA256_128.tagLength;
    byte[] payload = new byte[size - header - tagLen];
    packets = new ByteBuffer[RING];
    for (int i = 0; i < RING; i++) {
      byte[] p = sealers[i % flows].seal(payload);
      packets[i] = ByteBuffer.allocateDirect(p.length).put(p).flip();
    }
    for (PacketSealer ps : sealers) {
      ps.destroy();
    }
    counters = new Counters();
    freshRouterState();
    bare = registry.macKey(Algorithm.HMAC_SHA256, k); // the last flow's key: same cost as any
    tagLength = tagLen;
    tag = new byte[tagLen];
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (counters.drops() != 0) {
      // Every packet must pass the whole check, or the figures measure something cheaper.
      throw new IllegalStateException("the verifier dropped packets: " + counters);
    }
    keys.close();
    bare.destroy();
    registry.close();
  }

  /** A router's keys with nothing seen yet: the ring's sequence numbers are new to it. */
  private void freshRouterState() {
    if (keys != null) {
      keys.close();
    }
    keys =
        new FlowKeys(
            registry,
            (c, e) -> CompletableFuture.completedFuture(kci.clone()),
            Clock.systemUTC(),
            5,
            FlowKeys.Settings.DEFAULT);
    verifier = new Verifier(keys);
  }

  private ByteBuffer nextPacket() {
    if (next == RING) {
      next = 0;
      freshRouterState(); // one code-secret fetch and derivation per flow per 8,192 packets
    }
    return packets[next++];
  }

  /** HMAC-SHA-256 over the bytes a packet's tag covers, compared in constant time. */
  @Benchmark
  public boolean bareHmac() {
    ByteBuffer b = packets[next & (RING - 1)];
    next = (next & (RING - 1)) + 1;
    int covered = b.capacity() - tagLength;
    b.get(covered, tag, 0, tagLength);
    b.limit(covered).position(0);
    boolean ok = bare.verify(b, tag, 0, tagLength);
    b.limit(b.capacity()).position(0);
    return ok;
  }

  /** The whole check, session key in the cache. */
  @Benchmark
  public Outcome verifyCached() {
    ByteBuffer b = nextPacket();
    return counted(verifier.verify(b, 0, b.capacity()).outcome());
  }

  /** Drops are counted as the router counts them, for the check at tear-down. */
  private Outcome counted(Outcome o) {
    if (o.isDrop()) {
      counters.count(o);
    }
    return o;
  }

  /**
   * The whole check after the session key left the cache: HKDF-Expand, a new key, then as above.
   */
  @Benchmark
  public Outcome verifyMiss() {
    keys.invalidateSessions();
    ByteBuffer b = nextPacket();
    return counted(verifier.verify(b, 0, b.capacity()).outcome());
  }
}
