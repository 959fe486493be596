package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of the registry for operators: the table in force, why each provider was chosen or
 * passed over, and how many operations each provider has served.
 *
 * @param table the table in force
 * @param operations per algorithm, operations served per provider since start
 * @param lastRejection the last configuration that was rejected (reload or watch), or null
 * @param discoveryProblems broken provider factory registrations
 */
public record RegistryStatus(
    ProviderTable table,
    Map<Algorithm, Map<String, Long>> operations,
    String lastRejection,
    List<String> discoveryProblems) {

  /** The status as an aligned text table, one block per algorithm. */
  public String format() {
    StringBuilder sb = new StringBuilder();
    var cfg = table.config();
    sb.append(
        String.format(
            "crypto provider table, generation %d, from %s (self-test %s, prewarm %s)%n",
            table.generation(),
            cfg.source(),
            cfg.selfTest() ? "on" : "off",
            cfg.prewarm() ? "on" : "off"));
    sb.append(
        String.format("  %-24s %-17s %-16s %s%n", "ALGORITHM", "PROVIDER", "VERDICT", "DETAIL"));
    for (Algorithm a : Algorithm.values()) {
      Selection s = table.selections().get(a);
      if (s == null) {
        sb.append(
            String.format(
                "  %-24s %-17s %-16s %s%n",
                a, "-", "DISABLED", "legacy algorithm, not enabled in the configuration"));
        continue;
      }
      String name = a + (a.legacy() ? " (legacy)" : "");
      boolean first = true;
      for (CandidateReport r : s.candidates()) {
        sb.append(
            String.format(
                "  %-24s %-17s %-16s %s%n",
                first ? name : "", r.provider(), r.verdict(), r.detail()));
        first = false;
      }
    }
    if (lastRejection != null) {
      sb.append("  last rejected configuration: ")
          .append(lastRejection)
          .append(System.lineSeparator());
    }
    for (String p : discoveryProblems) {
      sb.append("  provider discovery problem: ").append(p).append(System.lineSeparator());
    }
    return sb.toString();
  }
}
