package dev.portcullis.bench.cost;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's conclusions, written from the run's data: what each layer costs where it costs,
 * which TLS engine to pick, when session reuse pays, and where the figures stand against the
 * papers' own. Each sentence says which cells it reads; a difference the intervals cannot tell
 * apart from none is said to be none.
 */
final class Conclusions {
  /** The MYSEA thesis, table 5.2 (means over 100 netperf trials, ms): base case and proxy. */
  static final double MYSEA_CC_BASE = 0.776;

  static final double MYSEA_CC_PROXY = 1.888;
  static final double MYSEA_RR_BASE = 0.358;
  static final double MYSEA_RR_PROXY = 0.431;
  static final double MYSEA_STREAM_DROP = 21.67;

  /** The COPS over TLS/IPsec paper, table 4.1 and section 4.2 (ms, mean of five simulations). */
  static final double PAPER_CONNECT_PURE = 24;

  static final double PAPER_CONNECT_TLS = 24034.8;
  static final double PAPER_SESSION_PURE = 410; // simulation 1, the one it gives for all three
  static final double PAPER_SESSION_TLS = 450;

  private final Report report;
  private final List<String> layers;
  private final Map<String, long[]> resumptions;

  /**
   * @param report the run's cells and their comparisons (computed once, shared with the table)
   * @param layers the layers in run order
   * @param resumptions per layer with resumption, {resumed, all} handshakes of its resuming client
   */
  Conclusions(Report report, List<String> layers, Map<String, long[]> resumptions) {
    this.report = report;
    this.layers = layers;
    this.resumptions = resumptions;
  }

  private Cell cell(String layer, Metric m) {
    return report.cell(layer, m);
  }

  /** The conclusions as HTML list items (escaped). */
  List<String> write() {
    List<String> out = new ArrayList<>();
    Cell plainCc = cell(Report.BASE, Metric.CC);
    Cell plainRr = cell(Report.BASE, Metric.RR);
    if (plainCc == null || plainRr == null) {
      out.add("The base case did not run: nothing to conclude.");
      return out;
    }
    List<String> tls =
        layers.stream().filter(l -> l.startsWith("TLS ") && !l.contains("+")).toList();
    List<String> integrity = layers.stream().filter(l -> l.startsWith("integrity ")).toList();

    // what each layer costs: connections against open connections
    List<String> secured = new ArrayList<>(tls);
    secured.addAll(integrity);
    for (String l : secured) {
      out.add(
          l
              + ": connection set-up (CC) "
              + cost(l, Metric.CC)
              + "; a decision on an open connection (RR) "
              + cost(l, Metric.RR)
              + "; pipelined decisions (STREAM) "
              + cost(l, Metric.STREAM)
              + (integrity.contains(l)
                  ? ": two HMACs per exchange, nothing added to the handshake."
                  : "."));
    }

    // which engine
    tls.stream()
        .filter(l -> cell(l, Metric.CC) != null)
        .min(Comparator.comparingDouble(l -> cell(l, Metric.CC).stats().median()))
        .ifPresent(
            best ->
                out.add(
                    "Engine: "
                        + best.substring(4)
                        + " sets connections up fastest ("
                        + us(cell(best, Metric.CC))
                        + " against "
                        + tls.stream()
                            .filter(l -> !l.equals(best) && cell(l, Metric.CC) != null)
                            .map(l -> l.substring(4) + " " + us(cell(l, Metric.CC)))
                            .reduce((a, b) -> a + ", " + b)
                            .orElse("no other engine")
                        + "); on open connections the engines differ little (RR above)."));

    // when session reuse pays
    for (String l : tls) {
      Cell full = cell(l, Metric.CC);
      Cell resumed = cell(l, Metric.CC_RESUMED);
      if (full == null || resumed == null) {
        continue;
      }
      long[] k = resumptions.get(l);
      if (k != null && k[1] > 0 && k[0] == 0) {
        out.add(
            "Session reuse, "
                + l
                + ": it never resumed (0 of "
                + k[1]
                + " handshakes), so its CC_RESUMED cell is full handshakes; a cause is open work"
                + " (docs/benchmarks.md).");
        continue;
      }
      double ratio = resumed.stats().median() / full.stats().median();
      Cell rr = cell(l, Metric.RR);
      double saved = full.stats().median() - resumed.stats().median();
      out.add(
          String.format(
              Locale.ROOT,
              "Session reuse, %s: a resumed connection takes %.2fx a full handshake's time"
                  + " (%s against %s): it saves %.0f us per connection, %s.",
              l,
              ratio,
              us(resumed),
              us(full),
              saved,
              rr == null || ratio > 0.9
                  ? "next to nothing: the handshake is not where this engine's time goes"
                  : String.format(
                      Locale.ROOT,
                      "as much as %.0f decisions on an open connection",
                      saved / rr.stats().median())));
    }

    // against the papers
    String tlsDefault = tls.isEmpty() ? null : tls.get(0);
    if (tlsDefault != null && cell(tlsDefault, Metric.CC) != null) {
      out.add(
          String.format(
              Locale.ROOT,
              "Against the COPS over TLS/IPsec paper: its COPS/TLS connection took %.0fx a plain"
                  + " one (%.0f ms against %.0f ms, a JSSE of its day, table 4.1); here %s takes"
                  + " %.1fx (%s against %s). Its session operations took %.2fx with TLS (%.0f"
                  + " against %.0f ms, section 4.2); here %.2fx (%s against %s).",
              PAPER_CONNECT_TLS / PAPER_CONNECT_PURE,
              PAPER_CONNECT_TLS,
              PAPER_CONNECT_PURE,
              tlsDefault,
              ratio(tlsDefault, Metric.SESSION_CONNECT),
              us(cell(tlsDefault, Metric.SESSION_CONNECT)),
              us(cell(Report.BASE, Metric.SESSION_CONNECT)),
              PAPER_SESSION_TLS / PAPER_SESSION_PURE,
              PAPER_SESSION_TLS,
              PAPER_SESSION_PURE,
              ratio(tlsDefault, Metric.SESSION_OPERATIONS),
              us(cell(tlsDefault, Metric.SESSION_OPERATIONS)),
              us(cell(Report.BASE, Metric.SESSION_OPERATIONS))));
    }
    if (cell(Layer.PEP_PROXY, Metric.CC) != null && cell(Layer.RAW, Metric.CC) != null) {
      out.add(
          String.format(
              Locale.ROOT,
              "Against the MYSEA thesis (table 5.2): its trusted proxy, deciding each connection,"
                  + " made TCP_CC %+.0f%% (%.3f against %.3f ms), TCP_RR %+.0f%% and cut"
                  + " TCP_STREAM by %.0f%%. The PEP proxy here: CC %s, RR %s, STREAM %s, against"
                  + " raw TCP on loopback, where a round trip is %s rather than MYSEA's %.0f us:"
                  + " in absolute terms the proxy adds %.0f us per connection (MYSEA %.0f us) and"
                  + " %.0f us per exchange (MYSEA %.0f us).",
              100 * (MYSEA_CC_PROXY / MYSEA_CC_BASE - 1),
              MYSEA_CC_PROXY,
              MYSEA_CC_BASE,
              100 * (MYSEA_RR_PROXY / MYSEA_RR_BASE - 1),
              MYSEA_STREAM_DROP,
              cost(Layer.PEP_PROXY, Metric.CC),
              cost(Layer.PEP_PROXY, Metric.RR),
              cost(Layer.PEP_PROXY, Metric.STREAM),
              us(cell(Layer.RAW, Metric.RR)),
              MYSEA_RR_BASE * 1000,
              cell(Layer.PEP_PROXY, Metric.CC).stats().median()
                  - cell(Layer.RAW, Metric.CC).stats().median(),
              (MYSEA_CC_PROXY - MYSEA_CC_BASE) * 1000,
              cell(Layer.PEP_PROXY, Metric.RR).stats().median()
                  - cell(Layer.RAW, Metric.RR).stats().median(),
              (MYSEA_RR_PROXY - MYSEA_RR_BASE) * 1000));
    }
    List<String> wide = new ArrayList<>();
    for (String l : layers) {
      for (Metric m : Metric.values()) {
        Cell c = cell(l, m);
        if (c != null && c.stats().wide()) {
          wide.add(l + " " + m);
        }
      }
    }
    if (!wide.isEmpty()) {
      out.add(
          "Too noisy to read on their own (the median's interval wider than ±10 %): "
              + String.join(", ", wide)
              + ". Run again on a quieter machine, or with more --trials.");
    }
    return out;
  }

  /** "+40 % [+30, +52]", or "no measurable difference" when the interval holds zero. */
  private String cost(String layer, Metric m) {
    Comparison k = report.comparison(layer, m);
    if (k == null) {
      return "not measured";
    }
    if (!k.significant()) {
      return "no measurable difference";
    }
    return String.format(Locale.ROOT, "%+.0f %% [%+.0f, %+.0f]", k.percent(), k.low(), k.high());
  }

  private double ratio(String layer, Metric m) {
    Cell c = cell(layer, m);
    Cell base = cell(Report.BASE, m);
    return c == null || base == null ? Double.NaN : c.stats().median() / base.stats().median();
  }

  private static String us(Cell c) {
    return c == null ? "-" : String.format(Locale.ROOT, "%.0f us", c.stats().median());
  }
}
