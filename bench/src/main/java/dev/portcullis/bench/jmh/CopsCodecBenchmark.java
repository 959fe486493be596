package dev.portcullis.bench.jmh;

import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessDecision;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.integrity.IntegrityAlgorithm;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.integrity.KeyRing;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
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
 * Encode and decode rates of the codec for a typical access REQ (handle, context, a 80-byte
 * ClientSI) and its DEC (context, flags, decision data), plain and with the Integrity object.
 *
 * <p>{@code integrity = none} measures the codec alone; with an algorithm, {@code encode*} signs
 * (encode once, MAC over the covered bytes, patch the digest) and {@code roundTrip*} signs, then
 * decodes and verifies on a receiving session. The ratio of a method's time with an algorithm to
 * its time with {@code none}, in the same run, is the cost of Integrity.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
@State(Scope.Thread)
public class CopsCodecBenchmark {

  @Param({"none", "HMAC-SHA-256-128", "HMAC-MD5-96"})
  public String integrity;

  private CryptoRegistry registry;
  private CopsMessage req;
  private CopsMessage dec;
  private byte[] reqBytes;
  private byte[] decBytes;
  private ByteBuf out;
  private ByteBuf reqIn;
  private ByteBuf decIn;
  private IntegritySession sender;
  private IntegritySession receiver;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    registry =
        CryptoRegistry.create(
            CryptoConfig.builder()
                .defaults("SunJCE", "SUN")
                .enableLegacy(Algorithm.HMAC_MD5)
                .build());
    AccessRequest ar =
        new AccessRequest(
            AccessOperation.ACCESS,
            "alice",
            2,
            List.of("nat"),
            InetAddress.getByName("192.0.2.1"),
            50000,
            InetAddress.getByName("198.51.100.1"),
            443,
            6,
            "https",
            AccessMode.READ,
            null,
            null);
    Handle h = Handle.of("pep-1/000042");
    Context ctx = new Context(Context.R_INCOMING, 0);
    req = Request.of(AccessRequest.CLIENT_TYPE, h, ctx, ar.toClientSI());
    dec =
        Decision.of(
            AccessRequest.CLIENT_TYPE,
            true,
            h,
            new DecisionSet(
                ctx,
                new DecisionFlags(false, DecisionCommand.INSTALL),
                null,
                null,
                new AccessDecision("rule-7", null, 2, 3600L, null, null).toDecisionData(),
                null));
    reqBytes = CopsCodec.encode(req);
    decBytes = CopsCodec.encode(dec);
    out = PooledByteBufAllocator.DEFAULT.buffer(1024);
    reqIn = Unpooled.wrappedBuffer(reqBytes);
    decIn = Unpooled.wrappedBuffer(decBytes);
    if (!"none".equals(integrity)) {
      KeyRing ring =
          KeyRing.builder(registry)
              .add(
                  1,
                  IntegrityAlgorithm.ofName(integrity),
                  "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII),
                  Instant.EPOCH,
                  Instant.parse("2100-01-01T00:00:00Z"))
              .build();
      sender = new IntegritySession(ring, Clock.systemUTC(), true, 0);
      receiver = new IntegritySession(ring, Clock.systemUTC(), true);
      // Start the receiver's sequence as the OPN/CAT exchange would.
      out.clear();
      sender.encodeSigned(ClientOpen.of(0, "pep-1"), out);
      try {
        CopsCodec.Decoded d = CopsCodec.decode(out, CopsCodec.DEFAULT_MAX_MESSAGE_SIZE);
        receiver.verify(d.message(), out, d.integrityOffset());
      } catch (CopsCodecException e) {
        throw new IllegalStateException("benchmark set-up: " + e.getMessage(), e);
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    out.release();
    registry.close();
  }

  private int encode(CopsMessage m) {
    out.clear();
    if (sender == null) {
      CopsCodec.encode(m, out);
    } else {
      sender.encodeSigned(m, out);
    }
    return out.writerIndex();
  }

  private CopsMessage decode(ByteBuf in) throws CopsCodecException {
    CopsCodec.Decoded d = CopsCodec.decode(in, CopsCodec.DEFAULT_MAX_MESSAGE_SIZE);
    if (receiver != null) {
      receiver.verify(d.message(), in, d.integrityOffset());
    }
    return d.message();
  }

  @Benchmark
  public int encodeReq() {
    return encode(req);
  }

  @Benchmark
  public int encodeDec() {
    return encode(dec);
  }

  /** Encode then decode; with Integrity, sign then verify (a stored message would be a replay). */
  @Benchmark
  public CopsMessage roundTripReq() throws CopsCodecException {
    encode(req);
    return decode(out);
  }

  @Benchmark
  public CopsMessage roundTripDec() throws CopsCodecException {
    encode(dec);
    return decode(out);
  }

  /** Decode only, of the plain REQ (the same whatever {@code integrity} is). */
  @Benchmark
  public CopsMessage decodeReq() throws CopsCodecException {
    return CopsCodec.decode(reqIn.readerIndex(0), CopsCodec.DEFAULT_MAX_MESSAGE_SIZE).message();
  }

  @Benchmark
  public CopsMessage decodeDec() throws CopsCodecException {
    return CopsCodec.decode(decIn.readerIndex(0), CopsCodec.DEFAULT_MAX_MESSAGE_SIZE).message();
  }
}
