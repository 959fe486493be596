package dev.portcullis.pep;

import dev.portcullis.support.Backoff;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Where the PEP connects and when: its home PDP, a redirect target (RFC 2748 section 2.2.10, at
 * most {@value #MAX_REDIRECTS} hops in a row), and exponential back-off after a lost connection,
 * which also sends it home. Event loop only.
 */
final class ReconnectPolicy {
  static final int MAX_REDIRECTS = 3;

  private final InetSocketAddress home;
  private final Backoff backoff;
  private InetSocketAddress target;
  private int redirects;

  ReconnectPolicy(InetSocketAddress home, Duration initial, Duration max) {
    this.home = home;
    this.target = home;
    this.backoff = new Backoff(initial, max);
  }

  /** The PDP to connect to now. */
  InetSocketAddress target() {
    return target;
  }

  InetSocketAddress home() {
    return home;
  }

  /** Follows a redirect unless too many came in a row; returns whether it did. */
  boolean redirect(InetSocketAddress to) {
    if (redirects >= MAX_REDIRECTS) {
      return false;
    }
    redirects++;
    target = to;
    return true;
  }

  /** A PDP accepted: the back-off and the redirect count start again. */
  void accepted() {
    redirects = 0;
    backoff.reset();
  }

  /** After a lost connection: back home, after the returned wait in milliseconds. */
  long lost() {
    target = home;
    redirects = 0;
    return backoff.nextDelayMillis();
  }
}
