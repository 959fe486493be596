package dev.portcullis.nativecrypto;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;

/**
 * How a whole GCM packet crosses to OpenSSL in one native call (docs/native-provider.md). Every JNI
 * function a native method calls (pinning, releasing, copying a region) is a round trip into the
 * VM, so this cipher's direct buffer carries the IV, additional data up to 256 bytes and, for
 * packets up to 2 KiB, the text itself: Java copies a small packet in and out and the native call
 * uses no JNI function at all. Larger packets, or more additional data, are pinned once each.
 */
final class GcmCall {
  private final ByteBuffer params = ByteBuffer.allocateDirect(NativeCrypto.GCM_PARAMS);
  private final long address = NativeCrypto.bufferAddress(params);

  /**
   * Seals ({@code encrypt}) {@code in[off, off+len)} or opens it (the text's {@code textLen} bytes
   * and the tag after them) into {@code out[outOff..]}, which the caller sized and checked for
   * overlap; bytes written, or -1 (sealing failed, or the tag did not verify).
   */
  int run(
      long ctx,
      boolean encrypt,
      byte[] iv,
      PendingBytes aad,
      byte[] in,
      int off,
      int len,
      int textLen,
      byte[] out,
      int outOff,
      int tagLength) {
    try {
      params.put(0, iv);
      byte[] aadArray = null;
      int aadLen = aad.length();
      if (aadLen <= NativeCrypto.GCM_TEXT_AT - NativeCrypto.GCM_AAD_AT) {
        params.put(NativeCrypto.GCM_AAD_AT, aad.array(), 0, aadLen);
      } else {
        aadArray = aad.array();
      }
      if (aadArray == null && textLen <= NativeCrypto.GCM_STAGED_TEXT) {
        params.put(NativeCrypto.GCM_TEXT_AT, in, off, len);
        int n = NativeCrypto.gcmStaged(ctx, encrypt, address, aadLen, textLen, tagLength);
        if (n >= 0) {
          params.get(NativeCrypto.GCM_TEXT_AT, out, outOff, n);
        }
        return n;
      }
      byte[] to = in == out ? null : out; // null: the same array, pinned once
      return NativeCrypto.gcm(
          ctx, encrypt, address, aadArray, aadLen, in, off, textLen, to, outOff, tagLength);
    } finally {
      Reference.reachabilityFence(params); // its memory is what the native call reads
    }
  }
}
