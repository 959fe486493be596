package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.function.Supplier;

/** Message digests from the current table's provider, through pooled instances. Thread-safe. */
public final class Digester {
  private final Pool pool;

  Digester(Algorithm algorithm, Supplier<ProviderTable> tables) {
    if (algorithm.kind() != Algorithm.Kind.DIGEST) {
      throw new IllegalArgumentException("algorithm: " + algorithm + " (expected: a digest)");
    }
    this.pool = new Pool(algorithm, tables);
    pool.current();
  }

  public Algorithm algorithm() {
    return pool.algorithm;
  }

  public int digestLength() {
    return pool.algorithm.outputLength();
  }

  /** The provider that new operations are served by now. */
  public String provider() {
    return pool.current().providerName();
  }

  public byte[] digest(byte[] data) {
    byte[] out = new byte[digestLength()];
    digest(data, 0, data.length, out, 0);
    return out;
  }

  /** Digests {@code data[off, off+len)} into {@code out} at {@code outOff}. */
  public int digest(byte[] data, int off, int len, byte[] out, int outOff) {
    Objects.checkFromIndexSize(off, len, data.length);
    Objects.checkFromIndexSize(outOff, digestLength(), out.length);
    EnginePool.Slot<MessageDigest> s = pool.acquire();
    int n;
    try {
      s.engine.update(data, off, len);
      n = s.engine.digest(out, outOff, digestLength());
    } catch (DigestException e) {
      pool.discard(s);
      throw new IllegalStateException(e);
    } catch (RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return n;
  }

  /** Digests the remaining bytes of {@code data}. */
  public int digest(ByteBuffer data, byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, digestLength(), out.length);
    EnginePool.Slot<MessageDigest> s = pool.acquire();
    int n;
    try {
      s.engine.update(data);
      n = s.engine.digest(out, outOff, digestLength());
    } catch (DigestException e) {
      pool.discard(s);
      throw new IllegalStateException(e);
    } catch (RuntimeException e) {
      pool.discard(s);
      throw e;
    }
    pool.release(s);
    return n;
  }

  private static final class Pool extends EnginePool<MessageDigest> {
    Pool(Algorithm algorithm, Supplier<ProviderTable> tables) {
      super(algorithm, tables);
    }

    @Override
    MessageDigest create(Selection sel) throws GeneralSecurityException {
      return MessageDigest.getInstance(algorithm.jcaName(), sel.provider());
    }
  }
}
