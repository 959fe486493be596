package dev.portcullis.nativecrypto;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One keyed HMAC context (precomputed inner and outer digest states, pn_core.c). Freed as a {@link
 * NativeHandle}.
 */
final class NativeHmac extends NativeHandle {
  /** The HMACs and their numbers in pn_core.c. */
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

  final Digest digest;
  private ByteBuffer staging; // small one-shot inputs, and the MAC, for the no-pinning path
  private long stagingAddress;

  private NativeHmac(Digest digest, long ptr) {
    super(ptr, NativeCrypto::hmacFree);
    this.digest = digest;
  }

  /** Keys a new context; the key schedule is computed here, once. */
  static NativeHmac create(Digest digest, byte[] key) {
    NativeCrypto.ensureAvailability();
    return new NativeHmac(digest, NativeCrypto.hmacNew(digest.id, key));
  }

  /** An independent copy, in the same state. */
  NativeHmac copy() {
    try {
      return new NativeHmac(digest, NativeCrypto.hmacDup(ptr()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  void reset() {
    try {
      NativeCrypto.hmacReset(ptr());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  void update(byte[] in, int off, int len) {
    Objects.checkFromIndexSize(off, len, in.length);
    try {
      NativeCrypto.hmacUpdate(ptr(), in, off, len);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Consumes the remaining bytes of {@code in}. */
  void update(ByteBuffer in) {
    try {
      feed(in, this::update, (b, pos, len) -> NativeCrypto.hmacUpdateDirect(ptr(), b, pos, len));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** Writes the MAC at {@code out[outOff]} and starts a new one. */
  int doFinal(byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, digest.length, out.length);
    try {
      return NativeCrypto.hmacFinal(ptr(), out, outOff);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A whole MAC over {@code in[off, off+len)} in one native call. Up to {@link
   * NativeCrypto#HMAC_STAGED} bytes are copied into this context's direct buffer and MACed there,
   * with no JNI function called at all: cheaper than pinning the array and copying the MAC out
   * through the VM (see {@code gcm_call} in portcullis_native.c for the figures).
   */
  int oneShot(byte[] in, int off, int len, byte[] out, int outOff) {
    Objects.checkFromIndexSize(off, len, in.length);
    Objects.checkFromIndexSize(outOff, digest.length, out.length);
    try {
      if (len > NativeCrypto.HMAC_STAGED) {
        return NativeCrypto.hmacOneShot(ptr(), in, off, len, out, outOff);
      }
      if (staging == null) {
        staging = ByteBuffer.allocateDirect(NativeCrypto.HMAC_STAGED + 64);
        stagingAddress = NativeCrypto.bufferAddress(staging);
      }
      staging.put(0, in, off, len);
      int n = NativeCrypto.hmacOneShotStaged(ptr(), stagingAddress, len);
      staging.get(0, out, outOff, n);
      return n;
    } finally {
      Reference.reachabilityFence(this); // the context and the staging buffer
    }
  }

  /** A whole MAC over the remaining bytes of {@code in} in one native call when it is direct. */
  int oneShot(ByteBuffer in, byte[] out, int outOff) {
    Objects.checkFromIndexSize(outOff, digest.length, out.length);
    int pos = in.position();
    int len = in.remaining();
    int n;
    try {
      if (in.isDirect()) {
        n = NativeCrypto.hmacOneShotDirect(ptr(), in, pos, len, out, outOff);
      } else if (in.hasArray()) {
        n = NativeCrypto.hmacOneShot(ptr(), in.array(), in.arrayOffset() + pos, len, out, outOff);
      } else {
        byte[] b = new byte[len];
        in.duplicate().get(b);
        n = NativeCrypto.hmacOneShot(ptr(), b, 0, len, out, outOff);
      }
    } finally {
      Reference.reachabilityFence(this);
    }
    in.position(pos + len);
    return n;
  }
}
