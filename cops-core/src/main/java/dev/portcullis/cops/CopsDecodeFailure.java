package dev.portcullis.cops;

/**
 * What {@link CopsDecoder} emits instead of a message when input is malformed. The handler behind
 * it decides what to tell the peer (an Error object in a DEC, or a Client-Close) and closes the
 * connection; the decoder discards everything after it.
 */
public record CopsDecodeFailure(CopsCodecException cause) {}
