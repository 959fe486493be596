package dev.portcullis.nativecrypto;

import java.nio.ByteBuffer;
import java.util.Objects;

/** One SHA-256 or SHA-512 context (pn_core.c). Freed as a {@link NativeHandle}. */
final class NativeDigest extends NativeHandle {
  /** The digests and their numbers in pn_core.c. */
  enum Algorithm {
    SHA256(3, 32),
    SHA512(5, 64);

    final int id;
    final int length;

    Algorithm(int id, int length) {
      this.id = id;
      this.length = length;
    }
  }

  final Algorithm algorithm;

  private NativeDigest(Algorithm algorithm, long ptr) {
    super(ptr, NativeCrypto::digestFree);
    this.algorithm = algorithm;
  }

  static NativeDigest create(Algorithm a) {
    NativeCrypto.ensureAvailability();
    return new NativeDigest(a, NativeCrypto.digestNew(a.id));
  }

  NativeDigest copy() {
    return new NativeDigest(algorithm, NativeCrypto.digestDup(ptr()));
  }

  void reset() {
    NativeCrypto.digestReset(ptr());
  }

  void update(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    NativeCrypto.digestUpdate(ptr(), in, off, len);
  }

  /** Consumes the remaining bytes of {@code in}. */
  void update(ByteBuffer in) {
    feed(in, this::update, (b, pos, len) -> NativeCrypto.digestUpdateDirect(ptr(), b, pos, len));
  }

  /** Writes the digest at {@code out[outOff]} and starts a new one. */
  int doFinal(byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, algorithm.length, out.length);
    return NativeCrypto.digestFinal(ptr(), out, outOff);
  }
}
