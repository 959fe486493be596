package dev.portcullis.pep.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), root);
  }
}
