/**
 * The COPS PDP: the server, its per-PEP connections, security settings, the owned and hash-chained
 * audit log, counters and timings. Reference: {@code docs/pdp.md}.
 */
package dev.portcullis.pdp;
