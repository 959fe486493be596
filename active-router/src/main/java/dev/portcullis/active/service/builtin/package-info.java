/** The codes the sample domain runs: a counter, a payload tagger, a rate limiter, a forwarder. */
package dev.portcullis.active.service.builtin;
