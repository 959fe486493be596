package dev.portcullis.active.service;

import java.nio.ByteBuffer;

/** What a service sees of a verified packet. Valid only during {@link ActiveService#process}. */
public interface PacketContext {
  /** The router running the service. */
  String router();

  long user();

  int code();

  long sequence();

  /** IPs and IPd as text (allocates). */
  String source();

  String destination();

  /** True if the payload travels encrypted. */
  boolean encrypted();

  /** Bytes of payload as carried (ciphertext and GCM tag when encrypted). No allocation. */
  int payloadLength();

  /**
   * The payload, read-only: the plaintext if the service {@link ActiveService#readsPayload() reads
   * payloads} (decrypted for it when encrypted), else the bytes as carried.
   */
  ByteBuffer payload();

  /**
   * Replaces the payload of a packet that travels in the clear; the router re-computes its MAC
   * under the session key before forwarding it.
   *
   * @throws IllegalStateException for an encrypted packet: re-encrypting under the same sequence
   *     number would reuse a GCM nonce
   */
  void replacePayload(byte[] payload);

  /** Wall-clock time, milliseconds (the router's clock, which tests control). */
  long nowMillis();
}
