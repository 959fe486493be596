/**
 * Key derivation: HKDF (RFC 5869) over the registry's HMAC, and the session KDF that turns a
 * packet's fields and Kci into its flow's keys.
 */
package dev.portcullis.active.kdf;
