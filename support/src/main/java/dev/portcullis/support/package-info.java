/**
 * The bottom floor every module may use: XML config reading with file:line errors and {@link
 * dev.portcullis.support.ConfigException}, owned and durable files, range-checked numbers,
 * summarised logging, the Netty transport and process settings, and the one implementation of each
 * small policy the product shares: {@link dev.portcullis.support.TokenBucket} (rate limits), {@link
 * dev.portcullis.support.Backoff} (retry timing) and {@link dev.portcullis.support.Quantiles}
 * (latency quantiles, over HdrHistogram).
 */
package dev.portcullis.support;
