/**
 * Packet verification: the session and code-secret caches, the RFC 6479 replay window with high-
 * water marks, and the {@link dev.portcullis.active.verify.Verifier}, which answers with one {@link
 * dev.portcullis.active.verify.Verification} per packet and counts nothing (its user counts each
 * packet's {@link dev.portcullis.active.verify.Outcome} once, in {@link
 * dev.portcullis.active.verify.Counters}). Nothing is cached for a packet that has not been
 * authenticated.
 */
package dev.portcullis.active.verify;
