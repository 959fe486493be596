package dev.portcullis.nativecrypto;

import java.util.Arrays;

/**
 * Bytes a GCM cipher holds back until {@code doFinal}: additional data (given to OpenSSL in the
 * same native call as the text), and a decryption's whole input (nothing is released before the tag
 * verified). One array, grown by doubling and kept across packets, so a cipher that is reused per
 * packet allocates nothing here once warm. {@link java.io.ByteArrayOutputStream} would copy the
 * bytes out again for every packet.
 */
final class PendingBytes {
  private byte[] bytes = new byte[0];
  private int length;

  void append(byte[] in, int off, int len) {
    if (len > bytes.length - length) {
      long need = (long) length + len;
      if (need > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("GCM: more than 2 GiB held for one doFinal");
      }
      bytes =
          Arrays.copyOf(
              bytes, (int) Math.max(need, Math.min(Integer.MAX_VALUE - 8L, 2L * bytes.length)));
    }
    System.arraycopy(in, off, bytes, length, len);
    length += len;
  }

  /** The array the bytes are in, from index 0; valid until the next {@link #append}. */
  byte[] array() {
    return bytes;
  }

  int length() {
    return length;
  }

  void clear() {
    length = 0;
  }
}
