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

  Report(
      Instant started,
      Duration took,
      Map<String, Object> options,
      Map<String, String> layers,
      List<Cell> cells,
      List<String> skipped,
      String timeWait) {
    this.started = started;
    this.took = took;
    this.options = options;
    this.layers = layers;
    this.cells = cells;
    this.skipped = skipped;
    this.timeWait = timeWait;
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
    List<Map<String, Object>> cs = new ArrayList<>();
    for (Cell c : cells) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("layer", c.layer());
      m.put("metric", c.metric().name());
      m.put("unit", c.metric().unit);
      m.put("stats", c.stats());
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
            + " rate lower):%n",
        BASE, Layer.RAW);
    out.printf("  %-26s", "layer");
    for (Metric m : Metric.values()) {
      out.printf(" %20s", m.name());
    }
    out.println();
    for (String l : layers.keySet()) {
      out.printf("  %-26s", l);
      for (Metric m : Metric.values()) {
        out.printf(" %20s", text(l, m));
      }
      out.println();
    }
    out.printf("(times in microseconds, STREAM in decisions per second)%n");
  }

  private String text(String layer, Metric m) {
    Cell c = cell(layer, m);
    if (c == null) {
      return "-";
    }
    double med = c.stats().median();
    String against = baseOf(layer);
    Cell base = cell(against, m);
    String v = fmt("%.0f", med);
    if (base == null || layer.equals(against)) {
      return v;
    }
    return v
        + fmt(" (%+.0f%%)", Stats.overheadPercent(base.stats().median(), med, m.higherIsBetter));
  }

  private static String fmt(String f, Object... a) {
    return String.format(Locale.ROOT, f, a);
  }

  // ---- HTML ---------------------------------------------------------------------------------

  void writeHtml(Path file, JmhResults jmh) throws IOException {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Portcullis: the cost of security</title><style>")
        .append("body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;")
        .append("color:#222}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid")
        .append(" #ccc;padding:3px 8px;text-align:right}th:first-child,td:first-child{text-align:")
        .append("left}.cost{color:#a33}.gain{color:#272}svg{display:block;margin:0.5em 0 2em}")
        .append("code{background:#f4f4f4;padding:0 3px}</style></head><body>");
    h.append("<h1>The cost of security</h1>");
    Map<String, Object> mach = machine();
    h.append("<p>")
        .append(esc(String.valueOf(mach)))
        .append("<br>started ")
        .append(esc(started.toString()))
        .append(", took ")
        .append(took.toSeconds())
        .append(" s; options ")
        .append(esc(String.valueOf(options)))
        .append("<br>")
        .append(esc(timeWait))
        .append("</p>");
    if (!skipped.isEmpty()) {
      h.append("<p>Skipped: ").append(esc(String.join("; ", skipped))).append("</p>");
    }
    h.append("<h2>Layers</h2><table><tr><th>layer</th><th>what it is</th></tr>");
    layers.forEach(
        (k, v) ->
            h.append("<tr><td>")
                .append(esc(k))
                .append("</td><td style=\"text-align:left\">")
                .append(esc(v))
                .append("</td></tr>"));
    h.append("</table>");
    h.append("<h2>Overhead against the base case</h2><p>Medians of every trial; in brackets the")
        .append(" cost against <b>")
        .append(BASE)
        .append("</b>, and for the two proxies against <b>")
        .append(Layer.RAW)
        .append("</b> (for times how much longer, for rates how much lower), the shape of table")
        .append(" 5.2 of the MYSEA thesis (Chua Kai Ping, <i>Performance Analysis of MYSEA</i>).")
        .append(" Times in microseconds, STREAM in decisions per second (the proxies: exchanges")
        .append(" per second).</p>")
        .append("<table><tr><th>layer</th>");
    for (Metric m : Metric.values()) {
      h.append("<th title=\"").append(esc(m.description)).append("\">").append(m).append("</th>");
    }
    h.append("</tr>");
    for (String l : layers.keySet()) {
      h.append("<tr><td>").append(esc(l)).append("</td>");
      for (Metric m : Metric.values()) {
        String t = text(l, m);
        String cls = t.contains("(+") ? "cost" : t.contains("(-") ? "gain" : "";
        h.append("<td class=\"").append(cls).append("\">").append(esc(t)).append("</td>");
      }
      h.append("</tr>");
    }
    h.append("</table>");
    h.append("<h2>Distributions</h2><p>Boxes: quartiles and median; whiskers: the furthest")
        .append(" trials within 1.5 interquartile ranges; dots: the trials beyond.</p>");
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

  static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
