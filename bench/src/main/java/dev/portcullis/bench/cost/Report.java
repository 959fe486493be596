package dev.portcullis.bench.cost;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The harness's output: a JSON file with every trial, and one HTML page with no outside references
 * (inline SVG, inline CSS) that renders without network access.
 */
final class Report {
  private final Instant started;
  private final Duration took;
  private final Map<String, Object> options;
  private final Map<String, String> layers; // name -> description, in run order
  private final List<Cell> cells;
  private final List<String> skipped;
  private final String timeWait;
  private final Map<String, long[]> resumptions; // layer -> {resumed, all handshakes}
  private final Map<String, Comparison> comparisons =
      new java.util.concurrent.ConcurrentHashMap<>();

  Report(
      Instant started,
      Duration took,
      Map<String, Object> options,
      Map<String, String> layers,
      List<Cell> cells,
      List<String> skipped,
      String timeWait,
      Map<String, long[]> resumptions) {
    this.started = started;
    this.took = took;
    this.options = options;
    this.layers = layers;
    this.cells = cells;
    this.skipped = skipped;
    this.timeWait = timeWait;
    this.resumptions = resumptions;
  }

  static Map<String, Object> machine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cpus", Runtime.getRuntime().availableProcessors());
    m.put("jdk", System.getProperty("java.vm.name") + " " + Runtime.version());
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    try {
      Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .findFirst()
          .ifPresent(l -> m.put("cpu", l.substring(l.indexOf(':') + 1).trim()));
    } catch (IOException e) {
      // not Linux
    }
    return m;
  }

  /** The layers, in run order. */
  java.util.Set<String> layerNames() {
    return layers.keySet();
  }

  Cell cell(String layer, Metric m) {
    for (Cell c : cells) {
      if (c.layer().equals(layer) && c.metric() == m) {
        return c;
      }
    }
    return null;
  }

  /** The base case every COPS layer's overhead is against. */
  static final String BASE = "plain";

  /** What a layer's overhead is against: the proxies against the raw exchanges they carry. */
  static String baseOf(String layer) {
    return layer.equals(Layer.HAPROXY) || layer.equals(Layer.PEP_PROXY) ? Layer.RAW : BASE;
  }

  void writeJson(Path file) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("tool", "portcullis cost-of-security");
    root.put("started", started.toString());
    root.put("seconds", took.toSeconds());
    root.put("machine", machine());
    root.put("options", options);
    root.put("timeWait", timeWait);
    root.put("skipped", skipped);
    root.put("layers", layers);
    Map<String, Object> resumed = new LinkedHashMap<>();
    resumptions.forEach((l, k) -> resumed.put(l, Map.of("resumed", k[0], "handshakes", k[1])));
    root.put("resumptions", resumed);
    List<Map<String, Object>> cs = new ArrayList<>();
    for (Cell c : cells) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("layer", c.layer());
      m.put("metric", c.metric().name());
      m.put("unit", c.metric().unit);
      m.put("stats", c.stats());
      m.put("wide", c.stats().wide());
      Comparison k = comparison(c.layer(), c.metric());
      if (k != null) {
        Map<String, Object> against = new LinkedHashMap<>();
        against.put("layer", baseOf(c.layer()));
        against.put("costPercent", k.percent());
        against.put("low", k.low());
        against.put("high", k.high());
        against.put("significant", k.significant());
        m.put("against", against);
      }
      m.put("trials", c.trials());
      cs.add(m);
    }
    root.put("cells", cs);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
  }

  /** The overhead table on the console. */
  void printSummary(PrintWriter out) {
    out.printf(
        "%nMedians; in brackets, the cost against '%s' (the proxies: against '%s'; time longer /"
            + " rate lower);%n'~' where the 95%% intervals cannot tell the two apart, '!' where a"
            + " cell is too noisy to read (its median's interval wider than +-10%%):%n",
        BASE, Layer.RAW);
    out.printf("  %-28s", "layer");
    for (Metric m : Metric.values()) {
      out.printf(" %19s", m.name());
    }
    out.println();
    for (String l : layers.keySet()) {
      out.printf("  %-28s", l);
      for (Metric m : Metric.values()) {
        out.printf(" %19s", text(l, m));
      }
      out.println();
    }
    out.printf("(times in microseconds, STREAM in decisions or exchanges per second)%n");
  }

  /** A cell as "542 (+40%)", "542 (~)" when not significant, with "!" when too noisy. */
  private String text(String layer, Metric m) {
    Cell c = cell(layer, m);
    if (c == null) {
      return "-";
    }
    String v = fmt("%.0f", c.stats().median()) + (c.stats().wide() ? "!" : "");
    Comparison k = comparison(layer, m);
    if (k == null) {
      return v;
    }
    return v + (k.significant() ? fmt(" (%+.0f%%)", k.percent()) : " (~)");
  }

  /** The layer's cost against its base for {@code m}, or null for a base or a missing cell. */
  Comparison comparison(String layer, Metric m) {
    String against = baseOf(layer);
    Cell c = cell(layer, m);
    Cell base = cell(against, m);
    if (c == null || base == null || layer.equals(against)) {
      return null;
    }
    return comparisons.computeIfAbsent(layer + "\u0000" + m, k -> Comparison.of(base, c));
  }

  private static String fmt(String f, Object... a) {
    return String.format(Locale.ROOT, f, a);
  }

  // ---- HTML ---------------------------------------------------------------------------------

  /** What each metric is, where the table is: the same words as docs/benchmarks.md. */
  private static final Map<Metric, String> EXPLAINED = new LinkedHashMap<>();

  static {
    EXPLAINED.put(
        Metric.CC,
        "Connection set-up: a fresh connection until the PDP accepts the client type (OPN, CAT);"
            + " with TLS a full handshake each time. The proxies: connect and one exchange,"
            + " which for the PEP proxy includes its decision. After netperf's TCP_CC.");
    EXPLAINED.put(Metric.CC_RESUMED, "CC with the TLS session resumed (TLS layers only).");
    EXPLAINED.put(
        Metric.CC_IKE,
        "CC with no SA up: charon negotiates IKE (PSK) and the CHILD_SA first, then the"
            + " connection, as the COPS over TLS/IPsec paper's IPsec connect included the"
            + " negotiation (network mode, the IKE layer only).");
    EXPLAINED.put(
        Metric.RR,
        "One request and its answer on an open connection, one outstanding (COPS: a REQ and"
            + " its DEC); the mean of a batch. After TCP_RR.");
    EXPLAINED.put(
        Metric.CRR,
        "Connect, one request and answer, close: what a per-connection decision costs when"
            + " nothing is kept open. After TCP_CRR.");
    EXPLAINED.put(
        Metric.STREAM,
        "Requests per second with a window outstanding (COPS: decisions per second). After"
            + " TCP_STREAM, counted in messages rather than bytes.");
    EXPLAINED.put(
        Metric.SESSION_CONNECT,
        "The COPS over TLS/IPsec paper's five-message session on a fresh client, its first"
            + " part: the connection (OPN, CAT).");
    EXPLAINED.put(
        Metric.SESSION_OPERATIONS,
        "The same session's second part: the operations (REQ, DEC, CC), timed separately.");
  }

  void writeHtml(Path file, JmhResults jmh) throws IOException {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Portcullis: the cost of security</title><style>")
        .append("body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;")
        .append("color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid")
        .append(" #ccc;padding:3px 8px;text-align:right}th:first-child,td:first-child{text-align:")
        .append("left}.cost{color:#a33}.gain{color:#272}.ns{color:#777}.wide{background:#fff3d6}")
        .append("th{text-align:left}svg{display:block;margin:0.5em 0 2em}small{color:#555}")
        .append("code{background:#f4f4f4;padding:0 3px}</style></head><body>");
    h.append("<h1>The cost of security</h1>");
    header(h);
    h.append("<h2>Layers</h2><table><tr><th>layer</th><th>what it is</th></tr>");
    layers.forEach(
        (k, v) ->
            h.append("<tr><td>")
                .append(esc(k))
                .append("</td><td style=\"text-align:left\">")
                .append(esc(v))
                .append("</td></tr>"));
    h.append("</table>");
    overheadTable(h);
    if ("lab".equals(options.get("network"))) {
      NetworkSection.write(h, this);
    }
    h.append("<h2>Conclusions</h2><p>Written by the harness from this run's cells. A cost is the")
        .append(" difference of medians with its 95 % interval in brackets; where the interval")
        .append(" holds zero the run cannot tell the layer from its base.</p><ul>");
    for (String line : new Conclusions(this, List.copyOf(layers.keySet()), resumptions).write()) {
      h.append("<li>").append(esc(line)).append("</li>");
    }
    h.append("</ul>");
    h.append("<h2>Distributions</h2><p>One row per layer. Boxes: the middle half of the trials")
        .append(" (first to third quartile), the dark line the median; whiskers: the furthest")
        .append(" trials within 1.5 interquartile ranges; red dots: trials beyond them (outliers,")
        .append(" drawn, not dropped); <span style=\"color:#d60\">orange bar</span>: the 95 %")
        .append(" confidence interval of the median (bootstrap). A row marked (!) is too noisy to")
        .append(" read on its own. The axis is logarithmic where a chart's values span 30x.</p>");
    for (Metric m : Metric.values()) {
      List<Cell> row = new ArrayList<>();
      for (String l : layers.keySet()) {
        Cell c = cell(l, m);
        if (c != null) {
          row.add(c);
        }
      }
      if (!row.isEmpty()) {
        h.append("<h3>").append(m).append(": ").append(esc(m.description)).append("</h3>");
        h.append(Svg.boxplots(row, m.unit));
      }
    }
    if (jmh != null && !jmh.charts().isEmpty()) {
      h.append("<h2>Providers (JMH)</h2><p>From the JMH result given with <code>--jmh</code>;")
          .append(" lower is better for times.</p>");
      jmh.charts()
          .forEach(
              (title, bars) ->
                  h.append("<h3>").append(esc(title)).append("</h3>").append(Svg.bars(bars)));
    }
    h.append("</body></html>\n");
    Files.writeString(file, h, StandardCharsets.UTF_8);
  }

  /** Who ran what, where, when and for how long, in words. */
  private void header(StringBuilder h) {
    Map<String, Object> mach = machine();
    h.append("<p><b>Machine:</b> ")
        .append(esc(String.valueOf(mach.getOrDefault("cpu", "CPU model unknown"))))
        .append(", ")
        .append(mach.get("cpus"))
        .append(" cores; ")
        .append(esc(String.valueOf(mach.get("jdk"))))
        .append("; ")
        .append(esc(String.valueOf(mach.get("os"))))
        .append(".<br><b>Run:</b> started ")
        .append(esc(started.toString().replace('T', ' ').replaceAll("\\.\\d+Z$", " UTC")))
        .append(", took ")
        .append(took.toMinutes())
        .append(" min ")
        .append(took.toSecondsPart())
        .append(" s: ")
        .append(layers.size())
        .append(" layers, ")
        .append(options.get("trials"))
        .append(" trials per cell in ")
        .append(options.get("rounds"))
        .append(" rounds (every cell takes its turn in each round, the layers in a new order")
        .append(" each round) after ")
        .append(options.get("warmup"))
        .append(" warm-up trials; RR is the mean of ")
        .append(options.get("rrBatch"))
        .append(" round trips, STREAM ")
        .append(options.get("streamBatch"))
        .append(" requests in windows of ")
        .append(options.get("window"))
        .append(".<br><b>Ports:</b> ")
        .append(esc(timeWait))
        .append("</p>");
    if (!skipped.isEmpty()) {
      h.append("<p><b>Not run:</b> ").append(esc(String.join("; ", skipped))).append("</p>");
    }
    h.append("<p>The method follows the MYSEA thesis (Chua Kai Ping, <i>Performance Analysis of")
        .append(" MYSEA</i>, Naval Postgraduate School, 2012, chapters 3 to 5): a base case, each")
        .append(" security layer alone and together, every one measured the same way, reported")
        .append(" as the cost against the base; the session metrics follow the COPS over TLS and")
        .append(" IPsec performance paper.</p>");
  }

  private void overheadTable(StringBuilder h) {
    h.append("<h2>Overhead against the base case</h2><p>Each cell: the median of its trials")
        .append(" (times in microseconds, STREAM in requests per second) with the half-width of")
        .append(" its 95 % confidence interval; below it, the cost against <b>")
        .append(BASE)
        .append("</b> (for the two proxies against <b>")
        .append(Layer.RAW)
        .append("</b>): for times how much longer, for rates how much lower, with its own 95 %")
        .append(" interval, the shape of table 5.2 of the MYSEA thesis. <span class=\"cost\">Red")
        .append("</span>: a cost; <span class=\"gain\">green</span>: a gain; <span class=\"ns\">")
        .append("grey, \"no measurable difference\"</span>: the interval holds zero; <span")
        .append(" class=\"wide\">shaded</span> and marked (!): the cell's own interval is wider")
        .append(" than ±10 % of its median, too noisy to read on its own.</p>")
        .append("<table><tr><th>layer</th>");
    for (Metric m : Metric.values()) {
      h.append("<th title=\"").append(esc(m.description)).append("\">").append(m).append("</th>");
    }
    h.append("</tr>");
    for (String l : layers.keySet()) {
      h.append("<tr><td>").append(esc(l)).append("</td>");
      for (Metric m : Metric.values()) {
        Cell c = cell(l, m);
        if (c == null) {
          h.append("<td>-</td>");
          continue;
        }
        Stats st = c.stats();
        Comparison k = comparison(l, m);
        String cls = k == null ? "" : !k.significant() ? "ns" : k.percent() > 0 ? "cost" : "gain";
        h.append("<td class=\"")
            .append(cls)
            .append(st.wide() ? " wide" : "")
            .append("\">")
            .append(fmt("%.0f", st.median()))
            .append(fmt(" <small>±%.0f%%</small>", st.halfWidthPercent()))
            .append(st.wide() ? " (!)" : "");
        if (k != null) {
          h.append("<br>")
              .append(
                  k.significant()
                      ? fmt("%+.0f%% <small>[%+.0f, %+.0f]</small>", k.percent(), k.low(), k.high())
                      : "no measurable difference");
        }
        h.append("</td>");
      }
      h.append("</tr>");
    }
    h.append("</table><table><tr><th>metric</th><th>one trial is</th></tr>");
    EXPLAINED.forEach(
        (m, text) ->
            h.append("<tr><td>")
                .append(m)
                .append("</td><td style=\"text-align:left\">")
                .append(esc(text))
                .append("</td></tr>"));
    h.append("</table>");
  }

  static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
