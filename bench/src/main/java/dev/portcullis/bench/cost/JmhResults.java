package dev.portcullis.bench.cost;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The provider comparisons in a JMH JSON result ({@code -rf json}), grouped for charts. */
record JmhResults(Map<String, List<Bar>> charts) {
  /** One provider's score in one chart. */
  record Bar(String provider, double score, double error, String unit) {}

  /**
   * Reads the results of benchmarks that have a {@code provider} parameter; one chart per benchmark
   * and combination of its other parameters.
   */
  static JmhResults read(Path file) throws IOException {
    JsonNode root = new ObjectMapper().readTree(file.toFile());
    Map<String, List<Bar>> charts = new LinkedHashMap<>();
    for (JsonNode r : root) {
      JsonNode params = r.get("params");
      if (params == null || !params.has("provider")) {
        continue;
      }
      String bench = r.get("benchmark").asText();
      bench = bench.substring(bench.lastIndexOf('.', bench.lastIndexOf('.') - 1) + 1);
      Map<String, String> rest = new TreeMap<>();
      params
          .properties()
          .forEach(
              e -> {
                if (!e.getKey().equals("provider")) {
                  rest.put(e.getKey(), e.getValue().asText());
                }
              });
      String title = bench + " " + rest.toString().replaceAll("[{}]", "");
      JsonNode pm = r.get("primaryMetric");
      charts
          .computeIfAbsent(title, k -> new ArrayList<>())
          .add(
              new Bar(
                  params.get("provider").asText(),
                  pm.get("score").asDouble(),
                  pm.path("scoreError").asDouble(0),
                  pm.get("scoreUnit").asText()));
    }
    return new JmhResults(charts);
  }
}
