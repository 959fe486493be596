package dev.portcullis.active.verify;

import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.Malformation;
import dev.portcullis.active.packet.PacketView;
import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.MacKey;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Set;

/**
 * Verifies active packets, one at a time, in the order of the paper's router: structure, validity
 * interval, code secret, session key, replay window, MAC in constant time. A session derived for a
 * packet enters the cache only once that packet's MAC verified: unauthenticated packets leave no
 * state behind. One per thread (it holds the reusable view, cache probe and scratch arrays); the
 * keys it uses are shared through {@link FlowKeys}. A packet whose session is cached costs no
 * allocation.
 *
 * <p>In front of the shared session cache each verifier keeps the flows it saw lately, {@value
 * #SLOTS} slots in sets of two indexed by the flow's hash (a set holds the last two flows that
 * hashed to it; with one slot per hash, 64 flows collided often enough to send one packet in five
 * to the shared cache): a packet whose flow is there costs a hash and a comparison or two instead
 * of a cache lookup. Measured on the 2-core machine (ActiveVerifyBenchmark, 72-byte packets, 64
 * interleaved flows, one run each): 391 ns per packet before (1.52x the bare HMAC in that run), 284
 * ns with the slots and the clock read once per 16 packets (1.17x; docs/active-router.md). A slot
 * never outlives its session's place in the shared cache (leaving it closes the session's window: a
 * miss), and one packet in {@value #TOUCH_EVERY} found in a slot is looked up in the shared cache
 * as well, so that the cache still sees which flows are in use when it chooses what to evict.
 *
 * <p>It answers with a {@link Verification} and counts nothing: what becomes of a packet is
 * decided, and counted once, by whoever verifies it (the router's packet handler).
 */
public final class Verifier {
  private final FlowKeys keys;
  private final Set<MacAlgorithm> accepted;
  private final PacketView view = new PacketView();
  private final Verification result = new Verification(view);
  private final FlowId probe = new FlowId();

  static final int SLOTS = 512;
  static final int WAYS = 2;
  static final int TOUCH_EVERY = 64;
  private final FlowId[] slotIds = new FlowId[SLOTS];
  private final Session[] slotSessions = new Session[SLOTS];
  private int slotHits;
  private final byte[] tag = new byte[16];
  private final byte[] nonce = new byte[ActivePacket.GCM_NONCE];
  private final byte[] aadV4 = new byte[ActivePacket.HEADER_V4];
  private final byte[] aadV6 = new byte[ActivePacket.HEADER_V6];

  /** A verifier that accepts HMAC-SHA-256-128 only. */
  public Verifier(FlowKeys keys) {
    this(keys, EnumSet.of(MacAlgorithm.HMAC_SHA256_128));
  }

  /** A verifier that accepts the given MAC algorithms (legacy ones only if configured so). */
  public Verifier(FlowKeys keys, Set<MacAlgorithm> accepted) {
    this.keys = keys;
    this.accepted = EnumSet.copyOf(accepted);
  }

  /**
   * Verifies the packet at {@code buf[start, start+length)}, reading the clock for its validity
   * interval. The buffer's position and limit are left as they were.
   *
   * @return the answer, valid until the next call
   */
  public Verification verify(ByteBuffer buf, int start, int length) {
    return verify(keys.clock().millis(), buf, start, length);
  }

  /**
   * Verifies the packet at {@code buf[start, start+length)} at the time {@code nowMillis}: what a
   * caller that verifies packets in batches uses, reading the clock ({@link #clock}) once per batch
   * rather than once per packet (a router, once per socket read of up to 16 datagrams). The time
   * must be this verifier's clock read at most a few milliseconds ago: validity is judged in
   * seconds, give or take the configured skew.
   *
   * @return the answer, valid until the next call
   */
  public Verification verify(long nowMillis, ByteBuffer buf, int start, int length) {
    keys.observe(nowMillis);
    result.reset();
    Malformation malformation = view.wrap(buf, start, length);
    if (malformation != null) {
      result.malformation(malformation);
      return answer(Outcome.MALFORMED);
    }
    if (!accepted.contains(view.mac())) {
      return answer(Outcome.MAC_REFUSED);
    }
    long now = nowMillis / 1000;
    long skew = keys.skewSeconds();
    // SST and SET are unsigned; anything at or beyond 2^63 is far in the future.
    long sst = view.sst();
    long set = view.set();
    if (sst < 0 || now + skew < sst) {
      return answer(Outcome.NOT_YET_VALID);
    }
    if (set >= 0 && now - skew > set) {
      return answer(Outcome.EXPIRED);
    }
    probe.load(view);
    Session s = lookup();
    boolean derived = false;
    if (s == null) {
      MacKey prk = keys.prk(view.code(), view.epoch());
      if (prk == null) {
        Outcome o = keys.secretState(view.code(), view.epoch());
        if (o == Outcome.PENDING) {
          result.pending(keys.secretArrival(view.code(), view.epoch()));
        }
        return answer(o);
      }
      try {
        s = keys.derive(probe, view, prk);
      } catch (IllegalStateException e) {
        return answer(Outcome.CODE_UNAVAILABLE); // the secret was evicted and wiped meanwhile
      }
      derived = true;
    }
    long seq = view.sequence();
    if (!s.window().mayAccept(seq)) {
      return discard(derived, s, Outcome.REPLAY);
    }
    if (!macMatches(s)) {
      return discard(derived, s, Outcome.BAD_MAC);
    }
    if (derived) {
      // Authenticated: only now does the flow take a place in the cache.
      s = keys.admit(probe, s);
      if (s == null) {
        return answer(Outcome.OVERLOADED);
      }
    }
    if (!s.window().accept(seq)) {
      return answer(Outcome.REPLAY); // a copy verified on another thread in between
    }
    remember(s);
    result.session(s);
    return result.set(Outcome.ACCEPTED);
  }

  /** The clock the packets' validity is judged by. */
  public Clock clock() {
    return keys.clock();
  }

  /** The probe's session: from its slot if there, else from the shared cache; null if neither. */
  private Session lookup() {
    int set = (probe.hashCode() & (SLOTS / WAYS - 1)) * WAYS;
    for (int i = set; i < set + WAYS; i++) {
      Session s = slotSessions[i];
      if (s == null) {
        continue;
      }
      // A session leaving the shared cache closes its window before its keys are wiped: the flag
      // sits beside the fields the window check reads next, where the key's is a line of its own.
      if (s.window().isClosed()) {
        slotSessions[i] = null; // evicted or expired: let it go
      } else if (probe.equals(slotIds[i])) {
        if (++slotHits % TOUCH_EVERY != 0) {
          return s;
        }
        Session shared = keys.session(probe); // records the use; a new session if it was replaced
        if (shared != s) {
          slotSessions[i] = null;
        }
        return shared;
      }
    }
    return keys.session(probe);
  }

  /**
   * Puts an accepted packet's session in the first slot of the probe's set, moving what was there
   * to the second (the set's least recently stored flow leaves), unless it is there already.
   */
  private void remember(Session s) {
    int set = (probe.hashCode() & (SLOTS / WAYS - 1)) * WAYS;
    if (slotSessions[set] == s || slotSessions[set + 1] == s) {
      return;
    }
    FlowId id = slotIds[set + 1];
    slotIds[set + 1] = slotIds[set];
    slotSessions[set + 1] = slotSessions[set];
    if (id == null) {
      id = new FlowId();
    }
    slotIds[set] = id.copyFrom(probe);
    slotSessions[set] = s;
  }

  private boolean macMatches(Session s) {
    ByteBuffer buf = view.buffer();
    int n = view.mac().tagLength;
    buf.get(view.tagOffset(), tag, 0, n);
    int position = buf.position();
    int limit = buf.limit();
    try {
      buf.limit(view.start() + view.authenticatedLength()).position(view.start());
      return s.mac().verify(buf, tag, 0, n);
    } catch (IllegalStateException e) {
      return false; // the session was evicted and its key wiped while in use: treat as no match
    } finally {
      buf.limit(limit).position(position);
    }
  }

  /** Drops the packet, wiping a session derived for it (it was never cached). */
  private Verification discard(boolean derived, Session s, Outcome o) {
    if (derived) {
      s.destroy();
    }
    return answer(o);
  }

  private Verification answer(Outcome o) {
    return result.set(o);
  }

  /**
   * Decrypts the accepted packet's payload into {@code out} (from its position; at least the
   * payload length less 16 bytes must remain).
   *
   * @return false if the payload does not decrypt (the packet is then a {@link
   *     Outcome#DECRYPT_FAILED})
   */
  public boolean decrypt(ByteBuffer out) {
    Session s = result.session();
    CipherKey k = s.encryption();
    if (k == null) {
      MacKey prk = keys.prk(view.code(), view.epoch());
      if (prk == null) {
        return false;
      }
      k = s.encryption(() -> keys.encryptionKey(prk, s.flow()));
    }
    ActivePacket.nonce(view.sequence(), nonce);
    byte[] aad = view.ipv6() ? aadV6 : aadV4;
    ByteBuffer buf = view.buffer();
    buf.get(view.start(), aad, 0, aad.length);
    int position = buf.position();
    int limit = buf.limit();
    try {
      buf.limit(view.payloadOffset() + view.payloadLength()).position(view.payloadOffset());
      k.decrypt(nonce, aad, buf, out);
      return true;
    } catch (GeneralSecurityException | IllegalStateException e) {
      return false;
    } finally {
      buf.limit(limit).position(position);
    }
  }
}
