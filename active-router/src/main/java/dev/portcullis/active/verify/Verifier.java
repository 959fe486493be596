package dev.portcullis.active.verify;

import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.Malformation;
import dev.portcullis.active.packet.PacketView;
import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.MacKey;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
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
 * <p>It answers with a {@link Verification} and counts nothing: what becomes of a packet is
 * decided, and counted once, by whoever verifies it (the router's packet handler).
 */
public final class Verifier {
  private final FlowKeys keys;
  private final Set<MacAlgorithm> accepted;
  private final PacketView view = new PacketView();
  private final Verification result = new Verification(view);
  private final FlowId probe = new FlowId();
  private final FlowId lastId = new FlowId(); // the flow of the last accepted packet
  private Session last; // its session: consecutive packets of a flow skip the cache lookup
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
   * Verifies the packet at {@code buf[start, start+length)}. The buffer's position and limit are
   * left as they were.
   *
   * @return the answer, valid until the next call
   */
  public Verification verify(ByteBuffer buf, int start, int length) {
    result.reset();
    Malformation malformation = view.wrap(buf, start, length);
    if (malformation != null) {
      result.malformation(malformation);
      return answer(Outcome.MALFORMED);
    }
    if (!accepted.contains(view.mac())) {
      return answer(Outcome.MAC_REFUSED);
    }
    long now = keys.now() / 1000;
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
    Session s =
        last != null && probe.equals(lastId) && !last.mac().isDestroyed()
            ? last
            : keys.session(probe);
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
    if (s != last) {
      last = s;
      lastId.copyFrom(probe);
    }
    result.session(s);
    return result.set(Outcome.ACCEPTED);
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
