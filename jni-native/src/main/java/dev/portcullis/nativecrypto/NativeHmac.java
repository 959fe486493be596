package dev.portcullis.nativecrypto;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One keyed OpenSSL HMAC context. Freed by {@link #close} (once, however often it is called) or, if
 * forgotten, by a {@link Cleaner}. Not thread-safe: one thread at a time per instance; distinct
 * instances may be used by distinct threads at once.
 */
final class NativeHmac implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  /** The HMACs and their numbers in portcullis_native.c. */
  enum Digest {
    MD5(1, 16),
    SHA1(2, 20),
    SHA256(3, 32),
    SHA384(4, 48),
    SHA512(5, 64);

    final int id;
    final int length;

    Digest(int id, int length) {
      this.id = id;
      this.length = length;
    }
  }

  /** Owns the pointer; what the cleaner runs. */
  private static final class Context implements Runnable {
    final AtomicLong ptr;

    Context(long ptr) {
      this.ptr = new AtomicLong(ptr);
    }

    @Override
    public void run() {
      long p = ptr.getAndSet(0);
      if (p != 0) {
        NativeCrypto.hmacFree(p);
      }
    }
  }

  final Digest digest;
  private final Context context;
  private final Cleaner.Cleanable cleanable;

  private NativeHmac(Digest digest, long ptr) {
    this.digest = digest;
    this.context = new Context(ptr);
    this.cleanable = CLEANER.register(this, context);
  }

  /** Keys a new context; the key schedule is computed here, once. */
  static NativeHmac create(Digest digest, byte[] key) {
    NativeCrypto.ensureAvailability();
    return new NativeHmac(digest, NativeCrypto.hmacNew(digest.id, key));
  }

  /** An independent copy, in the same state. */
  NativeHmac copy() {
    return new NativeHmac(digest, NativeCrypto.hmacDup(ptr()));
  }

  private long ptr() {
    long p = context.ptr.get();
    if (p == 0) {
      throw new IllegalStateException("HMAC context closed");
    }
    return p;
  }

  void reset() {
    NativeCrypto.hmacReset(ptr());
  }

  void update(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    NativeCrypto.hmacUpdate(ptr(), in, off, len);
  }

  /** Consumes the remaining bytes of {@code in}. */
  void update(ByteBuffer in) {
    int pos = in.position();
    int len = in.remaining();
    if (in.isDirect()) {
      NativeCrypto.hmacUpdateDirect(ptr(), in, pos, len);
    } else if (in.hasArray()) {
      update(in.array(), in.arrayOffset() + pos, len);
    } else {
      byte[] b = new byte[len];
      in.duplicate().get(b);
      update(b, 0, len);
    }
    in.position(pos + len);
  }

  /** Writes the MAC at {@code out[outOff]} and starts a new one. */
  int doFinal(byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, digest.length, out.length);
    return NativeCrypto.hmacFinal(ptr(), out, outOff);
  }

  /** A whole MAC over {@code in[off, off+len)} in one native call. */
  int oneShot(byte[] in, int off, int len, byte[] out, int outOff) {
    Objects.checkFromIndexSize(off, len, in.length);
    Objects.checkFromIndexSize(outOff, digest.length, out.length);
    return NativeCrypto.hmacOneShot(ptr(), in, off, len, out, outOff);
  }

  /** A whole MAC over the remaining bytes of {@code in} in one native call when it is direct. */
  int oneShot(ByteBuffer in, byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, digest.length, out.length);
    int pos = in.position();
    int len = in.remaining();
    int n;
    if (in.isDirect()) {
      n = NativeCrypto.hmacOneShotDirect(ptr(), in, pos, len, out, outOff);
    } else if (in.hasArray()) {
      n = NativeCrypto.hmacOneShot(ptr(), in.array(), in.arrayOffset() + pos, len, out, outOff);
    } else {
      byte[] b = new byte[len];
      in.duplicate().get(b);
      n = NativeCrypto.hmacOneShot(ptr(), b, 0, len, out, outOff);
    }
    in.position(pos + len);
    return n;
  }

  @Override
  public void close() {
    cleanable.clean();
  }
}
