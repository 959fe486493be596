/**
 * Known-answer tests (RFC and Wycheproof vectors) a provider passes before it may serve an
 * algorithm.
 */
package dev.portcullis.crypto.kat;
