/**
 * COPS over TLS (RFC 4261): {@code TlsSettings} and {@code TlsEngine} (what the configuration
 * says), {@code CopsTls} (contexts, handlers, handshake descriptions, certificate names, what a
 * failed handshake means), {@code TrackingTrustManager} (full or resumed, per engine), {@code
 * ConscryptEngines} (the engine inside Conscrypt's wrapper) and {@code InMemoryTls}.
 */
package dev.portcullis.cops.tls;
