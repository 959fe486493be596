package dev.portcullis.pep.proxy;

import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicLong;

/** What the proxy did, for status and tests. */
public final class ProxyCounters {
  public final AtomicLong accepted = new AtomicLong();
  public final AtomicLong allowed = new AtomicLong();
  public final AtomicLong denied = new AtomicLong();
  public final AtomicLong revoked = new AtomicLong();
  public final AtomicLong failedClosed = new AtomicLong();
  public final AtomicLong noSubject = new AtomicLong();
  public final AtomicLong upstreamFailed = new AtomicLong();
  public final AtomicLong tlsRefused = new AtomicLong();
  public final AtomicLong allowedFromCache = new AtomicLong();

  /**
   * Connections admitted on their subject's reused grant while the PDP is there (grants="reuse").
   */
  public final AtomicLong allowedOnGrant = new AtomicLong();

  public final AtomicLong overLimit = new AtomicLong();

  /** Connections closed because a side neither read nor got its queued bytes out for too long. */
  public final AtomicLong idleClosed = new AtomicLong();

  /**
   * The round trip of each decision the proxy asked its PDP for (REQ sent to DEC received), while a
   * metrics endpoint is open; else null.
   */
  volatile Timer decisionRoundTrip;

  /** {@link System#nanoTime} when the first revoking DEC since the last reset arrived, or 0. */
  public final AtomicLong firstRevocationAt = new AtomicLong();

  /** {@link System#nanoTime} when the latest revoking DEC arrived, or 0. */
  public final AtomicLong lastRevocationAt = new AtomicLong();

  @Override
  public String toString() {
    return String.format(
        "accepted %d, allowed %d, denied %d, revoked %d, refused without a PDP %d,"
            + " without a subject %d, TLS refused %d, upstream unreachable %d,"
            + " allowed without a PDP under an earlier grant's valid-for %d,"
            + " allowed on a reused grant %d,"
            + " over a listener's max-connections %d",
        accepted.get(),
        allowed.get(),
        denied.get(),
        revoked.get(),
        failedClosed.get(),
        noSubject.get(),
        tlsRefused.get(),
        upstreamFailed.get(),
        allowedFromCache.get(),
        allowedOnGrant.get(),
        overLimit.get());
  }
}
