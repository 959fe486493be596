/**
 * The Authorization Server: signed session requests, the rules that grant them, session keys
 * derived with the current Kci, bound to the signer's TLS client certificate; the nonce journal
 * that makes a request usable once across restarts.
 */
package dev.portcullis.active.auth;
