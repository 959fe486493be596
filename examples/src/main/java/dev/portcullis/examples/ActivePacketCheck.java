package dev.portcullis.examples;

import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.verify.CodeSource;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * An application that verifies active packets (docs/active-packets.md) with the verifier alone, no
 * router around it: a {@link FlowKeys} (the per-flow session keys, derived from each packet's own
 * fields and the code's secret, cached) and a {@link Verifier} per thread. The code secrets come
 * from a {@link CodeSource}; here a map in memory, in production the Code Server.
 *
 * <p>A sender seals five packets of one flow; the application checks four, then a replay of the
 * second, then the fifth with a payload byte changed in transit, then the fifth as sent: a forgery
 * leaves nothing behind, so the genuine packet is still accepted after it. Run it with {@code java
 * -cp ... dev.portcullis.examples.ActivePacketCheck}.
 */
public final class ActivePacketCheck {
  private static final int CODE = 7;
  private static final int EPOCH = 1;

  private ActivePacketCheck() {}

  public static void main(String[] args) throws Exception {
    List<Outcome> outcomes = run(System.out);
    System.exit(outcomes.equals(EXPECTED) ? 0 : 1);
  }

  /** What {@link #run} sees. */
  static final List<Outcome> EXPECTED =
      List.of(
          Outcome.ACCEPTED,
          Outcome.ACCEPTED,
          Outcome.ACCEPTED,
          Outcome.ACCEPTED,
          Outcome.REPLAY,
          Outcome.BAD_MAC,
          Outcome.ACCEPTED);

  static List<Outcome> run(PrintStream out) throws Exception {
    byte[] kci = new byte[32]; // the code's secret, as the Code Server holds it
    new SecureRandom().nextBytes(kci);
    CodeSource secrets =
        (code, epoch) ->
            code == CODE && epoch == EPOCH
                ? CompletableFuture.completedFuture(kci.clone()) // the verifier wipes its copy
                : CompletableFuture.failedFuture(
                    new CodeSource.UnknownCodeException("no code " + code + " epoch " + epoch));
    Clock clock = Clock.systemUTC();
    long now = clock.millis() / 1000;
    Flow flow =
        new Flow(
            42, // the user the Authorization Server admitted
            now - 10, // valid from (SST) ...
            now + 3600, // ... to (SET), in seconds
            InetAddress.getByName("192.0.2.1"),
            InetAddress.getByName("198.51.100.9"),
            CODE);
    List<Outcome> outcomes = new ArrayList<>();
    try (CryptoRegistry registry = CryptoRegistry.create(config());
        FlowKeys keys = new FlowKeys(registry, secrets, clock, 5, FlowKeys.Settings.DEFAULT)) {
      PacketSealer sender = sender(registry, flow, kci);
      Verifier verifier = new Verifier(keys); // one per thread; HMAC-SHA-256-128 only
      List<byte[]> packets = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        packets.add(sender.seal(("reading " + i).getBytes(StandardCharsets.US_ASCII)));
      }
      byte[] fifth = packets.remove(4);
      byte[] forged = fifth.clone();
      forged[forged.length - 20] ^= 1; // a payload byte, just before the 16-byte tag
      packets.add(packets.get(1)); // replayed
      packets.add(forged);
      packets.add(fifth);
      for (byte[] p : packets) {
        Outcome o = verifier.verify(ByteBuffer.wrap(p), 0, p.length).outcome();
        outcomes.add(o);
        out.printf("%3d-byte packet: %s%n", p.length, o);
      }
      out.printf("sessions derived: %d (one per flow, then cached)%n", keys.derivations());
      sender.destroy();
    } finally {
      Arrays.fill(kci, (byte) 0);
    }
    return outcomes;
  }

  private static CryptoConfig config() {
    return CryptoConfig.builder()
        .source("ActivePacketCheck example")
        .defaults("SunJCE", "SUN", "BC")
        .prefer(Algorithm.HMAC_SHA256, "PortcullisNative", "SunJCE")
        .build();
  }

  /**
   * The sender's side: the flow's MAC key, as the Authorization Server hands it to a source (which
   * never sees the code secret itself).
   */
  private static PacketSealer sender(CryptoRegistry registry, Flow flow, byte[] kci) {
    SessionKdf kdf = new SessionKdf(registry);
    MacKey prk = kdf.prepare(kci);
    byte[] macKey = kdf.macKey(prk, flow, MacAlgorithm.HMAC_SHA256_128);
    prk.destroy();
    try {
      return new PacketSealer(registry, flow, EPOCH, MacAlgorithm.HMAC_SHA256_128, macKey, null);
    } finally {
      Arrays.fill(macKey, (byte) 0);
    }
  }
}
