package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.spi.OneShotMac;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.Objects;
import java.util.function.Supplier;
import javax.security.auth.Destroyable;

/**
 * A MAC key bound to the registry: computes and verifies MACs with whichever provider the current
 * table chooses, through pooled, pre-keyed engines. Thread-safe; make one per key and keep it (in a
 * session-key cache, say) rather than one per packet.
 *
 * <pre>{@code
 * MacKey k = registry.macKey(Algorithm.HMAC_SHA256, sessionKey);
 * int n = k.compute(packet, 0, macOffset, packet, macOffset);       // sign in place
 * boolean ok = k.verify(packet, 0, macOffset, packet, macOffset, n); // constant time
 * }</pre>
 */
public final class MacKey implements Destroyable {
  /** Shortest truncated tag {@link #verify} accepts (RFC 2104 section 5: at least 80 bits). */
  public static final int MIN_TAG_LENGTH = 10;

  private final RawKey key;
  private final Pool pool;

  MacKey(Algorithm algorithm, byte[] key, int off, int len, Supplier<ProviderTable> tables) {
    if (algorithm.kind() != Algorithm.Kind.MAC) {
      throw new IllegalArgumentException("algorithm: " + algorithm + " (expected: a MAC)");
    }
    Objects.checkFromIndexSize(off, len, key.length);
    this.key = new RawKey(algorithm.jcaName(), key, off, len);
    this.pool = new Pool(algorithm, tables, this.key);
    pool.current(); // fail now, not on first use, if the algorithm is disabled
  }

  public Algorithm algorithm() {
    return pool.algorithm;
  }

  /** MAC length in bytes. */
  public int macLength() {
    return pool.algorithm.outputLength();
  }

  /** The provider that new operations are served by now. */
  public String provider() {
    return pool.current().providerName();
  }

  /** MAC of the whole array. */
  public byte[] compute(byte[] data) {
    byte[] out = new byte[macLength()];
    compute(data, 0, data.length, out, 0);
    return out;
  }

  /**
   * MACs {@code data[off, off+len)} into {@code out[outOff, outOff+macLength())}.
   *
   * @return the MAC length
   */
  public int compute(byte[] data, int off, int len, byte[] out, int outOff) {
    Objects.checkFromIndexSize(off, len, data.length);
    Objects.checkFromIndexSize(outOff, macLength(), out.length);
    EnginePool.Slot<Engine> s = pool.acquire();
    int n;
    try {
      n = s.engine.mac.mac(data, off, len, out, outOff);
    } catch (RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return n;
  }

  /**
   * MACs the remaining bytes of {@code data} (heap or direct) into {@code out}; on return the
   * buffer's position equals its limit.
   *
   * @return the MAC length
   */
  public int compute(ByteBuffer data, byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, macLength(), out.length);
    EnginePool.Slot<Engine> s = pool.acquire();
    int n;
    try {
      n = s.engine.mac.mac(data, out, outOff);
    } catch (RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return n;
  }

  /**
   * Checks a MAC, full or truncated to {@code tagLen} bytes, in constant time.
   *
   * @throws IllegalArgumentException if {@code tagLen} is below {@link #MIN_TAG_LENGTH} or above
   *     the MAC length
   */
  public boolean verify(byte[] data, int off, int len, byte[] tag, int tagOff, int tagLen) {
    Objects.checkFromIndexSize(off, len, data.length);
    checkTag(tag, tagOff, tagLen);
    EnginePool.Slot<Engine> s = pool.acquire();
    boolean ok;
    try {
      s.engine.mac.mac(data, off, len, s.engine.scratch, 0);
      ok = ConstantTime.equals(s.engine.scratch, 0, tag, tagOff, tagLen);
    } catch (RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return ok;
  }

  /** Checks a MAC over the remaining bytes of {@code data}, in constant time. */
  public boolean verify(ByteBuffer data, byte[] tag, int tagOff, int tagLen) {
    checkTag(tag, tagOff, tagLen);
    EnginePool.Slot<Engine> s = pool.acquire();
    boolean ok;
    try {
      s.engine.mac.mac(data, s.engine.scratch, 0);
      ok = ConstantTime.equals(s.engine.scratch, 0, tag, tagOff, tagLen);
    } catch (RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return ok;
  }

  private void checkTag(byte[] tag, int tagOff, int tagLen) {
    if (tagLen < MIN_TAG_LENGTH || tagLen > macLength()) {
      throw new IllegalArgumentException(
          "tagLen: "
              + tagLen
              + " (expected: "
              + MIN_TAG_LENGTH
              + " to "
              + macLength()
              + " for "
              + pool.algorithm
              + ")");
    }
    Objects.checkFromIndexSize(tagOff, tagLen, tag.length);
  }

  /** Wipes the key and releases the pooled engines; later use throws. */
  @Override
  public void destroy() {
    pool.close();
    key.destroy();
  }

  @Override
  public boolean isDestroyed() {
    return key.isDestroyed();
  }

  @Override
  public String toString() {
    return "MacKey[" + pool.algorithm + ", " + key.length() + "-byte key]";
  }

  private static final class Engine {
    final OneShotMac mac;
    final byte[] scratch;

    Engine(OneShotMac mac) {
      this.mac = mac;
      this.scratch = new byte[mac.macLength()];
    }
  }

  private static final class Pool extends EnginePool<Engine> {
    private final RawKey key;

    Pool(Algorithm algorithm, Supplier<ProviderTable> tables, RawKey key) {
      super(algorithm, tables);
      this.key = key;
    }

    @Override
    Engine create(Selection sel) throws GeneralSecurityException {
      return new Engine(sel.factory().newOneShotMac(sel.provider(), algorithm.jcaName(), key));
    }

    @Override
    void dispose(Engine engine) {
      engine.mac.close();
    }
  }
}
