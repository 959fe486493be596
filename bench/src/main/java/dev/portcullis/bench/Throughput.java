package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The throughput part of {@link PdpLoad}: a fresh PDP's climb from cold to its plateau, then the
 * PDP beside its anchors in alternating rounds, so that a noisy machine's swings fall on all alike
 * and the ratios come from one run. The load comes from the C generator where {@link CPrograms}
 * could be built (so that the generator is not what limits the C responder), else from the Java one
 * ({@link LoopbackLoad.Flow}).
 */
final class Throughput {
  /** The climb reads the rate over windows this long. */
  static final long CLIMB_WINDOW_MS = 2_000;

  /** On the plateau: this many windows in a row within {@link #PLATEAU_BAND} of their mean. */
  static final int PLATEAU_WINDOWS = 3;

  static final double PLATEAU_BAND = 0.05;

  /** The climb gives up after this many windows (a machine too noisy to settle). */
  static final int CLIMB_MAX_WINDOWS = 30;

  private final EventLoopGroup group;
  private final byte[] opn;
  private final int reqLength;
  private final LoadOptions load;
  private final CPrograms c;
  private final byte[] requests;

  /**
   * @param c the C programs, or null to load from Java
   */
  Throughput(EventLoopGroup group, byte[] opn, int reqLength, LoadOptions load, CPrograms c)
      throws Exception {
    this.group = group;
    this.opn = opn;
    this.reqLength = reqLength;
    this.load = load;
    this.c = c;
    this.requests = LoopbackLoad.requests(load.outstanding, reqLength);
  }

  /** Which generator loads. */
  String generator() {
    return c != null ? "the C generator (c/cops-load.c)" : "the Java generator";
  }

  /**
   * Loads a fresh PDP in back-to-back windows of {@link #CLIMB_WINDOW_MS} (the C generator runs
   * once per window, reconnecting within milliseconds; the Java one keeps its connections) until
   * {@link #PLATEAU_WINDOWS} windows in a row are within ±5 % of their mean; prints the climb and
   * when the plateau began.
   */
  void climb(InetSocketAddress pdp) throws Exception {
    List<Double> rates = new ArrayList<>();
    int plateauAt = -1;
    if (c != null) {
      while (rates.size() < CLIMB_MAX_WINDOWS && plateauAt < 0) {
        rates.add(
            c.rate(pdp, opn, requests, load.outstanding, load.connections, 0, CLIMB_WINDOW_MS)
                .perSecond());
        plateauAt = plateau(rates);
      }
    } else {
      try (LoopbackLoad.Flow f =
          LoopbackLoad.Flow.open(group, pdp, opn, reqLength, load.connections, load.outstanding)) {
        while (rates.size() < CLIMB_MAX_WINDOWS && plateauAt < 0) {
          rates.add(f.rate(CLIMB_WINDOW_MS));
          plateauAt = plateau(rates);
        }
      }
    }
    StringBuilder line = new StringBuilder();
    for (double r : rates) {
      line.append(String.format(Locale.ROOT, " %.0fk", r / 1e3));
    }
    System.out.printf(
        "a fresh PDP, decisions/s over %d s windows:%s%n", CLIMB_WINDOW_MS / 1000, line);
    if (plateauAt < 0) {
      System.out.printf(
          "  no plateau within %d s: the machine is too noisy to read%n",
          rates.size() * CLIMB_WINDOW_MS / 1000);
    } else {
      System.out.printf(
          "  plateau from %d s after the first request (%d windows within ±%.0f %%)%n",
          plateauAt * CLIMB_WINDOW_MS / 1000, PLATEAU_WINDOWS, PLATEAU_BAND * 100);
    }
  }

  /** The index of the window the plateau begins at, or -1 while the last ones still move. */
  static int plateau(List<Double> rates) {
    int n = rates.size();
    if (n < PLATEAU_WINDOWS) {
      return -1;
    }
    double sum = 0;
    for (int i = n - PLATEAU_WINDOWS; i < n; i++) {
      sum += rates.get(i);
    }
    double mean = sum / PLATEAU_WINDOWS;
    for (int i = n - PLATEAU_WINDOWS; i < n; i++) {
      if (Math.abs(rates.get(i) - mean) > PLATEAU_BAND * mean) {
        return -1;
      }
    }
    return n - PLATEAU_WINDOWS;
  }

  /**
   * {@code rounds} rounds, each loading the C responder (if there is one), the raw Netty responder
   * and the PDP in turn for {@code load.seconds} after half a second to settle; prints each one's
   * median and the PDP's ratios to the anchors (the median of the rounds' ratios). With the C
   * generator it also prints each responder's CPU time per answer (user and system, over the whole
   * load): what the answers cost, which a busy machine's swings move far less than the rates.
   *
   * @param cResponder the C responder, or null when none could be built here
   */
  void sideBySide(
      int rounds, CPrograms.Responder cResponder, InetSocketAddress raw, InetSocketAddress pdp)
      throws Exception {
    InetSocketAddress[] to = {cResponder == null ? null : cResponder.address(), raw, pdp};
    String[] names = {"C responder (epoll)", "raw Netty responder", "PDP, rules engine"};
    double[][] rate = new double[3][rounds];
    double[][] cpu = new double[3][rounds];
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < 3; i++) {
        if (to[i] == null) {
          continue;
        }
        byte[] open = i < 2 ? null : opn;
        if (c == null) {
          rate[i][r] = javaLoad(to[i], open);
          continue;
        }
        long cpu0 = i == 0 ? cResponder.cpuNanos() : thisProcessCpuNanos();
        CPrograms.Load l =
            c.rate(
                to[i],
                open,
                requests,
                load.outstanding,
                load.connections,
                500,
                load.seconds * 1000L);
        long cpu1 = i == 0 ? cResponder.cpuNanos() : thisProcessCpuNanos();
        rate[i][r] = l.perSecond();
        cpu[i][r] = (cpu1 - cpu0) / (double) Math.max(1, l.answers());
      }
    }
    System.out.printf(
        "%nthroughput, %d connections x %d outstanding, %d rounds of %d s alternating, load from"
            + " %s:%n",
        load.connections, load.outstanding, rounds, load.seconds, generator());
    System.out.printf(
        "  %-28s %12s %s%n", "", "answers/s", c == null ? "" : "   CPU per answer (ns)");
    for (int i = 0; i < 3; i++) {
      if (to[i] != null) {
        Stats s = Stats.of(rate[i]);
        System.out.printf(
            Locale.ROOT,
            "  %-28s %,12.0f %s  (rate in rounds %,.0f to %,.0f)%n",
            names[i],
            s.median(),
            c == null ? "" : String.format(Locale.ROOT, "%,10.0f", Stats.of(cpu[i]).median()),
            s.min(),
            s.max());
      }
    }
    for (int i = 0; i < 2; i++) {
      if (to[i] != null) {
        Stats s = ratios(rate[2], rate[i]);
        System.out.printf(
            Locale.ROOT,
            "  PDP / %-21s %.2fx rate (rounds %.2fx to %.2fx)%s%n",
            names[i],
            s.median(),
            s.min(),
            s.max(),
            c == null
                ? ""
                : String.format(
                    Locale.ROOT, ", %.2fx CPU per answer", ratios(cpu[2], cpu[i]).median()));
      }
    }
  }

  /** The rounds' ratios a[r] / b[r]. */
  private static Stats ratios(double[] a, double[] b) {
    double[] q = new double[a.length];
    for (int r = 0; r < a.length; r++) {
      q[r] = a[r] / b[r];
    }
    return Stats.of(q);
  }

  /**
   * CPU time of this JVM, all threads: with the C generator loading, the responder being measured
   * is the only one here at work (the others wait for connections).
   */
  static long thisProcessCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private double javaLoad(InetSocketAddress to, byte[] open) throws Exception {
    try (LoopbackLoad.Flow f =
        LoopbackLoad.Flow.open(group, to, open, reqLength, load.connections, load.outstanding)) {
      f.rate(500); // connections opened and the first answers through: settle
      return f.rate(load.seconds * 1000L);
    }
  }
}
