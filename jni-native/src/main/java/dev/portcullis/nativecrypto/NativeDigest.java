package dev.portcullis.nativecrypto;

import java.lang.ref.Reference;
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
    try {
      return new NativeDigest(algorithm, NativeCrypto.digestDup(ptr()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  void reset() {
    try {
      NativeCrypto.digestReset(ptr());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  void update(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    try {
      NativeCrypto.digestUpdate(ptr(), in, off, len);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Consumes the remaining bytes of {@code in}. */
  void update(ByteBuffer in) {
    try {
      feed(in, this::update, (b, pos, len) -> NativeCrypto.digestUpdateDirect(ptr(), b, pos, len));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Writes the digest at {@code out[outOff]} and starts a new one. */
  int doFinal(byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, algorithm.length, out.length);
    try {
      return NativeCrypto.digestFinal(ptr(), out, outOff);
    } finally {
      Reference.reachabilityFence(this);
    }
  }
}
