/**
 * The COPS Integrity object (RFC 2748 section 2.2.16): keys, key rings, HMAC algorithms, sequence
 * numbers, and the encoder that signs.
 */
package dev.portcullis.cops.integrity;
