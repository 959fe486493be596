/**
 * The audit log the PDP and the PEP proxy write: JSON lines, one per event, chained by SHA-256
 * hashes ({@link dev.portcullis.audit.AuditChain}) so that an edited, removed or reordered record
 * is found, written by one background thread from a bounded queue ({@link
 * dev.portcullis.audit.AuditLog}) to a file one writer owns. Reference: {@code docs/pdp.md}
 * ("Audit").
 */
package dev.portcullis.audit;
