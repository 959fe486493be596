package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.portcullis.support.DurableFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report page a reader opens: self-contained, every chart with a labelled axis and its unit,
 * intervals and conclusions present; and, where Debian's chromium is installed, rendered by a real
 * headless browser with the network taken away.
 */
class ReportPageTest {
  @TempDir Path tmp;

  Path page() throws Exception {
    Map<String, String> layers = new LinkedHashMap<>();
    layers.put(Layer.RAW, "no COPS");
    layers.put(Layer.PEP_PROXY, "the proxy");
    layers.put("plain", "the base case");
    layers.put("TLS openssl", "TLS");
    List<Cell> cells = new ArrayList<>();
    double[] scale = {1, 4, 5, 12};
    int i = 0;
    for (String l : layers.keySet()) {
      for (Metric m : List.of(Metric.CC, Metric.RR, Metric.STREAM)) {
        cells.add(
            new Cell(
                l,
                m,
                StatsTest.noisy(
                    i++, 50, m.higherIsBetter ? 100_000 / scale[i % 4] : 100 * scale[i % 4], 0.3)));
      }
    }
    cells.add(new Cell("TLS openssl", Metric.CC_RESUMED, StatsTest.noisy(99, 50, 700, 0.3)));
    // the network mode's IPsec layers, and its section
    layers.put("plain in ESP", "plain COPS inside ESP");
    layers.put("plain, IKE per connection", "IKE, then the connection");
    for (Metric m : List.of(Metric.CC, Metric.RR, Metric.STREAM, Metric.SESSION_OPERATIONS)) {
      cells.add(
          new Cell(
              "plain in ESP", m, StatsTest.noisy(i++, 50, m.higherIsBetter ? 15_000 : 600, 0.3)));
    }
    cells.add(
        new Cell("plain, IKE per connection", Metric.CC_IKE, StatsTest.noisy(98, 50, 7500, 0.3)));
    Map<String, Object> options = new LinkedHashMap<>();
    options.put("trials", 50);
    options.put("rounds", 5);
    options.put("warmup", 5);
    options.put("rrBatch", 20);
    options.put("streamBatch", 256);
    options.put("window", 32);
    options.put("network", "lab");
    Report r =
        new Report(
            Instant.parse("2026-11-24T03:00:00Z"),
            Duration.ofSeconds(95),
            options,
            layers,
            cells,
            List.of(),
            "TIME_WAIT: fine",
            Map.of("TLS openssl", new long[] {49, 50}));
    Path out = tmp.resolve("report");
    DurableFiles.replace(out.resolve("results.json"), r::writeJson);
    DurableFiles.replace(out.resolve("report.html"), f -> r.writeHtml(f, null));
    return out.resolve("report.html");
  }

  @Test
  void everyChartHasALabelledAxisWithItsUnitAndThePageFetchesNothing() throws Exception {
    String html = Files.readString(page(), StandardCharsets.UTF_8);
    assertFalse(
        html.contains("<script")
            || html.contains("<link")
            || html.contains("src=")
            || html.contains("url("),
        "nothing fetched: the page renders offline");
    Matcher svg = Pattern.compile("<svg.*?</svg>", Pattern.DOTALL).matcher(html);
    int charts = 0;
    while (svg.find()) {
      charts++;
      String chart = svg.group();
      assertTrue(
          chart.contains(">us") || chart.contains(">decisions/s") || chart.contains(">us ("),
          "an axis names its unit: " + chart.substring(0, Math.min(300, chart.length())));
      assertTrue(
          Pattern.compile("<text[^>]*>[0-9]").matcher(chart).find(), "an axis has tick labels");
    }
    assertEquals(6, charts, "CC, CC_RESUMED, CC_IKE, RR, STREAM, and the session's operations");
    assertTrue(html.contains("ESP ran in userspace"), "the network section says where ESP ran");
    assertTrue(html.contains("24,035"), "the paper's table 4.1 beside the run");
    assertTrue(html.contains("Noise in the IPsec cells"), "and why IPsec cells are noisy, if so");
    assertTrue(html.contains("<h2>Conclusions</h2>"));
    assertTrue(html.contains("±"), "each median with its interval");
    assertTrue(html.contains("Chua Kai Ping"), "papers cited by author and title");
    assertFalse(html.toLowerCase().contains("seed 0"));
  }

  @Test
  @Timeout(120)
  void aRealHeadlessBrowserRendersItWithoutANetwork() throws Exception {
    Path chromium = Path.of("/usr/bin/chromium");
    assumeTrue(Files.isExecutable(chromium), "Debian's chromium is not installed here");
    Path html = page();
    Path png = tmp.resolve("page.png");
    List<String> flags =
        List.of(
            chromium.toString(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--proxy-server=http://127.0.0.1:9", // the network taken away: every fetch fails
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--user-data-dir=" + tmp.resolve("profile"),
            "--window-size=1150,1600");
    List<String> dump = new ArrayList<>(flags);
    dump.add("--dump-dom");
    dump.add(html.toUri().toString());
    Process p =
        new ProcessBuilder(dump).redirectError(tmp.resolve("chromium.log").toFile()).start();
    String dom = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(90, TimeUnit.SECONDS));
    assertTrue(dom.contains("The cost of security") && dom.contains("Conclusions"), dom);
    assertTrue(dom.contains("<svg"), "the charts are in the rendered page");
    List<String> shot = new ArrayList<>(flags);
    shot.add("--screenshot=" + png);
    shot.add(html.toUri().toString());
    Process s =
        new ProcessBuilder(shot)
            .redirectErrorStream(true)
            .redirectOutput(tmp.resolve("shot.log").toFile())
            .start();
    assertTrue(s.waitFor(90, TimeUnit.SECONDS));
    byte[] b = Files.readAllBytes(png);
    assertTrue(b.length > 10_000 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G', "a PNG of the page");
  }
}
