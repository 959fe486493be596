package dev.portcullis.pep.firewall;

import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the host firewall did, counted on its kernel thread and read from any (its metrics, tests,
 * the stats line): packets queued, flows allowed (asked, or on a reused grant), denied, refused
 * without asking, ended (revoked, idle), and packets the queue dropped because its reader was
 * behind.
 */
public final class FirewallCounters {
  /** First packets of new flows the kernel queued to the firewall (each SYN sent again too). */
  public final AtomicLong queued = new AtomicLong();

  /** Flows allowed by a decision asked of the PDP. */
  public final AtomicLong allowed = new AtomicLong();

  /** Flows allowed on their subject's grant from that address, without a request. */
  public final AtomicLong allowedOnGrant = new AtomicLong();

  /**
   * Of those, flows the kernel admitted itself on the grant, with no packet queued (the grant's
   * {@code reusable} element), reported after by conntrack's new-flow events.
   */
  public final AtomicLong admittedInKernel = new AtomicLong();

  /**
   * Flows the kernel admitted on a grant that was over by the time the firewall heard of them (it
   * ended meanwhile, or the address now maps to another subject): ended at once.
   */
  public final AtomicLong admittedAfterGrant = new AtomicLong();

  /**
   * Conntrack events the firewall did not see (its socket or ring full); each time, it read
   * conntrack's table of marked flows instead, so no admitted flow goes unrecorded.
   */
  public final AtomicLong eventsLost = new AtomicLong();

  /** Flows refused by a decision (Remove), or for want of one (no PDP, no answer). */
  public final AtomicLong denied = new AtomicLong();

  /** Flows refused without asking: their source address names no subject. */
  public final AtomicLong noSubject = new AtomicLong();

  /** Flows refused without asking: {@code max-flows} flows were held. */
  public final AtomicLong overLimit = new AtomicLong();

  /** Allowed flows ended in the kernel by a Remove, a refusal when asked again, or PDP loss. */
  public final AtomicLong revoked = new AtomicLong();

  /** Allowed flows forgotten after no packet for their validity. */
  public final AtomicLong idle = new AtomicLong();

  /**
   * Packets the reader could not take: more than one receive could hand over, or the socket's
   * buffer full (ENOBUFS); each dropped, never let through.
   */
  public final AtomicLong readerDropped = new AtomicLong();

  /**
   * Packets the kernel dropped with the queue full or its reader gone ({@code queue_dropped} plus
   * {@code user_dropped} of {@code /proc/net/netfilter/nfnetlink_queue}), as of the last refresh.
   */
  public final AtomicLong kernelDropped = new AtomicLong();

  /** Requests out at the PDP now: at most one per subject and service. */
  public final AtomicInteger requestsInFlight = new AtomicInteger();

  /** The most requests that were out at the PDP at once. */
  public final AtomicInteger mostRequestsInFlight = new AtomicInteger();

  /** Allowed flows held now (in the kernel's set and the firewall's table). */
  public final AtomicInteger flows = new AtomicInteger();

  /** From a flow's request to the PDP's decision arriving, while metrics are open; else null. */
  volatile Timer decisionRoundTrip;

  @Override
  public String toString() {
    return String.format(
        "queued %d, allowed %d, allowed on a grant %d (%d in the kernel, %d of them after the"
            + " grant, ended; events lost %d), denied %d, refused without a subject %d,"
            + " over max-flows %d, revoked %d, idle %d, dropped by the queue %d (reader) %d"
            + " (kernel), flows held %d",
        queued.get(),
        allowed.get(),
        allowedOnGrant.get(),
        admittedInKernel.get(),
        admittedAfterGrant.get(),
        eventsLost.get(),
        denied.get(),
        noSubject.get(),
        overLimit.get(),
        revoked.get(),
        idle.get(),
        readerDropped.get(),
        kernelDropped.get(),
        flows.get());
  }
}
