package dev.portcullis.pep;

import dev.portcullis.support.Backoff;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * Where the PEP connects and when: its PDPs in order of preference (the first is home; the others
 * take over when it is lost, as a fleet's members do), a redirect target (RFC 2748 section 2.2.10,
 * at most {@value #MAX_REDIRECTS} hops in a row), and exponential back-off after a lost connection.
 *
 * <p>After a loss the PEP tries the next PDP of the list at once: a fleet member that died is not
 * waited for. Only when a whole round of the list has failed does the back-off grow, so a PEP whose
 * PDPs are all down does not spin. With one PDP this is the plain back-off it always was. Event
 * loop only.
 */
final class ReconnectPolicy {
  static final int MAX_REDIRECTS = 3;

  private final List<InetSocketAddress> pdps;
  private final Backoff backoff;
  private int at; // index in pdps of the PDP tried last
  private int failedInRound; // losses since a PDP last accepted
  private InetSocketAddress target;
  private int redirects;

  ReconnectPolicy(List<InetSocketAddress> pdps, Duration initial, Duration max) {
    if (pdps.isEmpty()) {
      throw new IllegalArgumentException("no PDP address");
    }
    this.pdps = List.copyOf(pdps);
    this.target = this.pdps.get(0);
    this.backoff = new Backoff(initial, max);
  }

  ReconnectPolicy(InetSocketAddress home, Duration initial, Duration max) {
    this(List.of(home), initial, max);
  }

  /** The PDP to connect to now. */
  InetSocketAddress target() {
    return target;
  }

  /** The PDP of the list tried last (the one a redirect came from, or the next to try). */
  InetSocketAddress home() {
    return pdps.get(at);
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

  /** A PDP accepted: the back-off, the round and the redirect count start again. */
  void accepted() {
    redirects = 0;
    failedInRound = 0;
    backoff.reset();
  }

  /** True if a PDP of the list has not been tried since the last one accepted. */
  boolean anotherToTry() {
    return failedInRound + 1 < pdps.size();
  }

  /**
   * After a lost connection (or a failed connect): the next PDP of the list, after the returned
   * wait in milliseconds (none while a round of the list is not yet exhausted).
   */
  long lost() {
    redirects = 0;
    failedInRound++;
    at = (at + 1) % pdps.size();
    target = pdps.get(at);
    if (pdps.size() > 1 && failedInRound % pdps.size() != 0) {
      return 0;
    }
    return backoff.nextDelayMillis();
  }
}
