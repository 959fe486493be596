package dev.portcullis.cops;

import io.netty.buffer.ByteBuf;

/**
 * Checks the Integrity of each decoded message against the exact bytes received. Installed in a
 * {@link CopsDecoder} per connection; see {@code dev.portcullis.cops.integrity.IntegritySession}.
 */
public interface IntegrityVerifier {

  /**
   * Verifies {@code message}, decoded from {@code frame} (readable bytes: the whole message).
   *
   * @param integrityOffset offset of the Integrity object in the frame, or -1 if there is none
   * @throws CopsCodecException with {@link ErrorCode#AUTHENTICATION_FAILURE} or {@link
   *     ErrorCode#AUTHENTICATION_REQUIRED} when the message must be rejected
   */
  void verify(CopsMessage message, ByteBuf frame, int integrityOffset) throws CopsCodecException;
}
