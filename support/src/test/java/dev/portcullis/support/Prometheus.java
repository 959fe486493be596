package dev.portcullis.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real Prometheus (Debian's {@code prometheus} package) scraping endpoints every second, for
 * tests that check our exposition is what Prometheus itself parses. Where it is not installed (CI),
 * {@link #start} skips the test. In the support module's test jar, for every module's tests.
 */
public final class Prometheus implements AutoCloseable {
  private final Path dir;
  private final Process process;
  private final int web;
  private final HttpClient http = HttpClient.newHttpClient();

  private Prometheus(Path dir, Process process, int web) {
    this.dir = dir;
    this.process = process;
    this.web = web;
  }

  private static Path binary() {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(d, "prometheus");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * Starts Prometheus in {@code dir} scraping each target (job name to endpoint), or skips the
   * calling test where Prometheus is not installed.
   */
  public static Prometheus start(Path dir, Map<String, InetSocketAddress> targets)
      throws IOException {
    Path bin = binary();
    assumeTrue(bin != null, "prometheus is not installed here");
    StringBuilder yml = new StringBuilder("global:\n  scrape_interval: 1s\nscrape_configs:\n");
    targets.forEach(
        (job, at) ->
            yml.append("  - job_name: ")
                .append(job)
                .append("\n    static_configs:\n      - targets: ['127.0.0.1:")
                .append(at.getPort())
                .append("']\n"));
    Files.writeString(dir.resolve("prometheus.yml"), yml);
    int web = freePort();
    Process p =
        new ProcessBuilder(
                bin.toString(),
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("tsdb"),
                "--web.listen-address=127.0.0.1:" + web)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    return new Prometheus(dir, p, web);
  }

  /**
   * Asks the query API for {@code promql} every half second until the answer satisfies {@code done}
   * or {@code within} has passed.
   *
   * @return the last answer (JSON), or what went wrong, followed by Prometheus's log if not done
   */
  public String query(String promql, Predicate<String> done, Duration within) throws Exception {
    URI api =
        URI.create(
            "http://127.0.0.1:"
                + web
                + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    AtomicReference<String> last = new AtomicReference<>("");
    try {
      return Waits.await()
          .atMost(within)
          .pollInterval(Duration.ofMillis(500)) // Prometheus scrapes on its own cadence
          .until(
              () -> {
                try {
                  last.set(
                      http.send(
                              HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(5)).build(),
                              HttpResponse.BodyHandlers.ofString())
                          .body());
                } catch (IOException e) {
                  last.set(e.toString()); // not listening yet
                }
                return last.get();
              },
              done);
    } catch (ConditionTimeoutException e) {
      return last.get() + "\n" + Files.readString(dir.resolve("prometheus.log"));
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
