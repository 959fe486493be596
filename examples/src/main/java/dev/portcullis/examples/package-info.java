/**
 * Applications embedding Portcullis's libraries, run by the build (docs/library.md): a PDP and a
 * PEP embedded in an application, custom policy engines through the engine SPI, the crypto
 * registry's HMAC, an active packet checked by the verifier, a PacketCable Multimedia policy server
 * setting and revoking gates.
 */
package dev.portcullis.examples;
