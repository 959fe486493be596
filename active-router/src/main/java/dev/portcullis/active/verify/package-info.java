/**
 * Packet verification: the session and code-secret caches, the RFC 6479 replay window with high-
 * water marks, the verifier and its drop counters. Nothing is cached for a packet that has not been
 * authenticated.
 */
package dev.portcullis.active.verify;
