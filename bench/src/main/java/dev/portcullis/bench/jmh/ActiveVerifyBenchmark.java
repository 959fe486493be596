package dev.portcullis.bench.jmh;

import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.verify.Counters;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * direct buffers, as a router receives them.
 *
 * <p>A router never accepts a sequence number twice, so each iteration is one pass over a ring of
 * {@value #RING} packets (a batch of that many calls, the time reported per packet), and between
 * iterations, untimed, every packet's sequence number moves on by the ring's length and its tag is
 * computed again in place. The router's state (session cache, replay windows) lives as long as the
 * trial, as in a router: what is measured, allocation included ({@code -prof gc}), is the steady
 * state of the path, with nothing of the harness in it.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 200, batchSize = ActiveVerifyBenchmark.RING)
@Measurement(iterations = 400, batchSize = ActiveVerifyBenchmark.RING)
@OperationsPerInvocation(ActiveVerifyBenchmark.RING)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class ActiveVerifyBenchmark {
  static final int RING = 1 << 13;

  /**
   * Packet bytes, header and tag included. 72 is the smallest IPv4 packet (56-byte header, empty
   * payload, 16-byte tag), standing in for the paper's 64.
   */
  @Param({"72", "256", "1024", "1500"})
  public int size;

  /**
   * Flows the packets interleave: 1, every packet the same flow as the last; 64, each packet
   * another flow's (64 keys, 64 replay windows and the verifier's flow slots in turn).
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
  private MacKey[] flowKeys; // each flow's MAC key, to tag the ring again between iterations
  private final byte[] full = new byte[32];
  private byte[] kci;
  private int next;
  private long now;

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
    flowKeys = new MacKey[flows];
    for (int f = 0; f < flows; f++) {
      Flow flow =
          new Flow(
              1000 + f,
              now - 60,
              now + 3600,
              InetAddress.getByName("192.0.2.1"),
              InetAddress.getByName("198.51.100.7"),
              2);
      byte[] k = kdf.macKey(prk, flow, MacAlgorithm.HMAC_SHA256_128);
      sealers[f] = new PacketSealer(registry, flow, 7, MacAlgorithm.HMAC_SHA256_128, k, null);
      flowKeys[f] = registry.macKey(Algorithm.HMAC_SHA256, k);
      Arrays.fill(k, (byte) 0);
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
    keys =
        new FlowKeys(
            registry,
            (c, e) -> CompletableFuture.completedFuture(kci.clone()),
            Clock.systemUTC(),
            5,
            FlowKeys.Settings.DEFAULT);
    verifier = new Verifier(keys);
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
    for (MacKey m : flowKeys) {
      m.destroy();
    }
    registry.close();
  }

  /**
   * Untimed, before each pass: every packet's sequence number moves on by a flow's share of the
   * ring and its tag is computed again, in place (no allocation, so none shows in {@code -prof
   * gc}).
   */
  @Setup(Level.Iteration)
  public void nextPass() {
    int perFlow = RING / flows;
    for (int i = 0; i < RING; i++) {
      ByteBuffer b = packets[i];
      b.putLong(ActivePacket.OFF_SEQUENCE, b.getLong(ActivePacket.OFF_SEQUENCE) + perFlow);
      int covered = b.capacity() - tagLength;
      b.limit(covered).position(0);
      flowKeys[i % flows].compute(b, full, 0);
      b.limit(b.capacity()).position(0);
      b.put(covered, full, 0, tagLength);
    }
    next = 0;
  }

  private ByteBuffer nextPacket() {
    if (next == RING) {
      throw new IllegalStateException(
          "a batch longer than the ring of " + RING + " packets (leave -bs at its default)");
    }
    return packets[next++];
  }

  /**
   * HMAC-SHA-256 over the bytes a packet's tag covers with its flow's key, compared in constant
   * time (with 64 flows, 64 keys in turn, as the verifier uses them).
   */
  @Benchmark
  public boolean bareHmac() {
    MacKey key = flowKeys[next % flows];
    ByteBuffer b = nextPacket();
    int covered = b.capacity() - tagLength;
    b.get(covered, tag, 0, tagLength);
    b.limit(covered).position(0);
    boolean ok = key.verify(b, tag, 0, tagLength);
    b.limit(b.capacity()).position(0);
    if (!ok) {
      counters.count(Outcome.BAD_MAC);
    }
    return ok;
  }

  /**
   * The whole check, session key in the cache, as the router runs it: the clock read once per 16
   * packets, the datagrams of one socket read (Netty's default for datagram channels).
   */
  @Benchmark
  public Outcome verifyCached() {
    if ((next & 15) == 0) {
      now = System.currentTimeMillis();
    }
    ByteBuffer b = nextPacket();
    return counted(verifier.verify(now, b, 0, b.capacity()).outcome());
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
