/**
 * The operator endpoint a component opens with {@code <metrics listen=...>} (docs/operating.md):
 * {@link dev.portcullis.metrics.MetricsEndpoint} serves Prometheus metrics (Micrometer), {@code
 * /health} and {@code /ready} over Netty, exact paths and methods only; {@link
 * dev.portcullis.metrics.CryptoMeters} exposes the crypto registry's per-provider counters.
 */
package dev.portcullis.metrics;
