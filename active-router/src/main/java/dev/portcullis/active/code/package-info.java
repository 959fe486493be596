/**
 * The Code Server and its client: signed code modules and per-epoch code secrets (Kci) over mutual
 * TLS, the epochs it announces, and the loader that checks every class against the server's
 * signature.
 */
package dev.portcullis.active.code;
