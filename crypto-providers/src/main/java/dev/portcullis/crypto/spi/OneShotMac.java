package dev.portcullis.crypto.spi;

import java.nio.ByteBuffer;

/**
 * A keyed MAC that computes a whole MAC in one call: the shape of the registry's hot path. The key
 * schedule is done when the instance is made; each call starts from the keyed state, so no reset is
 * needed between calls.
 *
 * <p>Instances are not thread-safe; the registry pools them per thread. A provider with a faster
 * way than {@link javax.crypto.Mac} (one JNI call instead of update plus doFinal) supplies its own
 * through {@link CryptoProviderFactory#newOneShotMac}.
 */
public interface OneShotMac {

  /** Length of the MAC in bytes. */
  int macLength();

  /**
   * MACs {@code in[off, off+len)} into {@code out[outOff, outOff+macLength())}.
   *
   * @return {@link #macLength()}
   */
  int mac(byte[] in, int off, int len, byte[] out, int outOff);

  /**
   * MACs the remaining bytes of {@code in} (heap or direct); on return its position equals its
   * limit.
   *
   * @return {@link #macLength()}
   */
  int mac(ByteBuffer in, byte[] out, int outOff);

  /** Releases whatever the instance holds (native memory, key schedules). Idempotent. */
  default void close() {}
}
