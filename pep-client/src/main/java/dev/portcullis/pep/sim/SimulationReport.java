package dev.portcullis.pep.sim;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Prints simulation results as a table and writes them as JSON. */
public final class SimulationReport {
  private SimulationReport() {}

  /** One table: a row per phase with count, min, median, p99 and max in microseconds. */
  public static void print(PrintWriter out, String title, List<SessionTimes> phases) {
    out.println(title);
    out.printf(
        "  %-24s %7s %10s %10s %10s %10s%n",
        "PHASE", "N", "MIN us", "MEDIAN us", "P99 us", "MAX us");
    for (SessionTimes t : phases) {
      out.printf(
          "  %-24s %7d %10.1f %10.1f %10.1f %10.1f%n",
          t.name(),
          t.count(),
          t.min() / 1e3,
          t.quantile(0.5) / 1e3,
          t.quantile(0.99) / 1e3,
          t.max() / 1e3);
    }
    out.flush();
  }

  /**
   * The PDP side of simulated sessions, read from the PDP's audit file: the records of PEPs named
   * {@code pepPrefix}... written since {@code sinceMillis}. Waits up to two seconds for the PDP's
   * audit writer to catch up with the last session.
   */
  public static List<SessionTimes> fromAudit(Path audit, long sinceMillis, String pepPrefix)
      throws IOException, InterruptedException {
    ObjectMapper json = new ObjectMapper();
    List<Long> acceptToOpen = new ArrayList<>();
    List<Long> open = new ArrayList<>();
    List<Long> decision = new ArrayList<>();
    List<Long> connection = new ArrayList<>();
    long deadline = System.nanoTime() + 2_000_000_000L;
    int lastCount = -1;
    // the PDP's writer is another process: read, then wait for the file to change (at most 300 ms
    // without a change means it has caught up), rather than sleep between reads
    try (WatchService watch = audit.getFileSystem().newWatchService()) {
      audit.toAbsolutePath().getParent().register(watch, ENTRY_MODIFY, ENTRY_CREATE);
      while (true) {
        acceptToOpen.clear();
        open.clear();
        decision.clear();
        connection.clear();
        for (String line : Files.readAllLines(audit)) {
          if (line.isBlank()) {
            continue;
          }
          var n = json.readTree(line);
          if (n.path("ts").asLong() < sinceMillis
              || !n.path("pep").asText("").startsWith(pepPrefix)) {
            continue;
          }
          switch (n.path("event").asText()) {
            case "opened":
              acceptToOpen.add(n.path("acceptToOpenNanos").asLong());
              open.add(n.path("openNanos").asLong());
              break;
            case "decision":
              decision.add(n.path("latencyNanos").asLong());
              break;
            case "disconnected":
              connection.add(n.path("connectionNanos").asLong());
              break;
            default:
              break;
          }
        }
        int count = connection.size();
        if (count == lastCount || System.nanoTime() > deadline) {
          break;
        }
        lastCount = count;
        WatchKey changed = watch.poll(300, TimeUnit.MILLISECONDS);
        if (changed != null) {
          changed.pollEvents();
          changed.reset();
        }
      }
    }
    return List.of(
        new SessionTimes("accept -> OPN", toArray(acceptToOpen)),
        new SessionTimes("OPN -> CAT", toArray(open)),
        new SessionTimes("REQ -> DEC", toArray(decision)),
        new SessionTimes("whole connection", toArray(connection)));
  }

  private static long[] toArray(List<Long> l) {
    return l.stream().mapToLong(Long::longValue).toArray();
  }

  /** Writes every phase's summary and samples (nanoseconds) as JSON. */
  public static void writeJson(
      Path file, Map<String, Object> meta, Map<String, List<SessionTimes>> sides)
      throws IOException {
    Map<String, Object> root = new LinkedHashMap<>(meta);
    for (Map.Entry<String, List<SessionTimes>> side : sides.entrySet()) {
      List<Map<String, Object>> phases = new ArrayList<>();
      for (SessionTimes t : side.getValue()) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("phase", t.name());
        p.put("count", t.count());
        p.put("minNanos", t.min());
        p.put("medianNanos", t.quantile(0.5));
        p.put("p99Nanos", t.quantile(0.99));
        p.put("maxNanos", t.max());
        p.put("samplesNanos", t.sorted());
        phases.add(p);
      }
      root.put(side.getKey(), phases);
    }
    // the one file asked for, replaced atomically; its directory and neighbours left as they are
    dev.portcullis.support.DurableFiles.replace(
        file,
        f ->
            new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(f.toFile(), root));
  }
}
