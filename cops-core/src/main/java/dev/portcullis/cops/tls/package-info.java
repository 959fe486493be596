/**
 * COPS over TLS (RFC 4261): TLS settings, engines, contexts, the tracking trust manager, and what a
 * failed handshake means.
 */
package dev.portcullis.cops.tls;
