package dev.portcullis.crypto;

import dev.portcullis.crypto.CandidateReport.Verdict;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.crypto.kat.KnownAnswers;
import dev.portcullis.crypto.kat.SelfTestResult;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a configuration into a {@link ProviderTable}: walks each algorithm's list in order and
 * admits the first provider that is installed, loads, offers the algorithm and passes its
 * known-answer tests.
 *
 * <p>Self-test results are kept per provider and algorithm for the life of the registry, so
 * switching back and forth between providers costs the tests once.
 */
final class TableBuilder {
  private static final Logger log = LoggerFactory.getLogger(TableBuilder.class);

  private final ProviderDirectory directory;
  private final Clock clock;
  private final Map<String, SelfTestResult> selfTests = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();

  TableBuilder(ProviderDirectory directory, Clock clock) {
    this.directory = directory;
    this.clock = clock;
  }

  ProviderTable build(CryptoConfig config, long generation) throws ProviderSelectionException {
    Map<Algorithm, Selection> selections = new EnumMap<>(Algorithm.class);
    // provider -> reason -> algorithms, so each unavailable provider costs one log line
    Map<String, Map<String, List<Algorithm>>> passedOver = new LinkedHashMap<>();
    for (Algorithm a : Algorithm.values()) {
      if (!config.enabled(a)) {
        continue;
      }
      List<CandidateReport> reports = new ArrayList<>();
      ProviderDirectory.Lookup chosen = null;
      for (String name : config.candidates(a)) {
        if (chosen != null) {
          reports.add(new CandidateReport(name, Verdict.STANDBY, "lower preference, not tried"));
          continue;
        }
        CandidateReport r = consider(config, a, name);
        reports.add(r);
        if (r.verdict() == Verdict.CHOSEN) {
          chosen = directory.lookup(name);
        } else if (r.verdict() == Verdict.NO_SERVICE && config.preferences(a).isEmpty()) {
          // A provider of the <default> list that does not offer this algorithm (SunJCE has no
          // digests, SUN no MACs): expected, and in the status table; not worth a warning.
          log.debug("crypto provider {} passed over for {}: {}", name, a, r.detail());
        } else {
          passedOver
              .computeIfAbsent(name, k -> new LinkedHashMap<>())
              .computeIfAbsent(r.verdict() + ": " + r.detail(), k -> new ArrayList<>())
              .add(a);
        }
      }
      if (chosen == null) {
        throw new ProviderSelectionException(
            config.source(),
            a,
            reports.stream()
                .map(r -> r.provider() + ": " + r.detail())
                .collect(Collectors.joining("; ")));
      }
      selections.put(
          a,
          new Selection(
              a,
              chosen.name(),
              chosen.provider(),
              chosen.factory(),
              reports,
              counter(a, chosen.name())));
    }
    passedOver.forEach(
        (provider, reasons) ->
            reasons.forEach(
                (reason, algs) ->
                    log.warn("crypto provider {} passed over for {}: {}", provider, algs, reason)));
    return new ProviderTable(generation, config, clock.instant(), selections);
  }

  private CandidateReport consider(CryptoConfig config, Algorithm a, String name) {
    ProviderDirectory.Lookup l = directory.lookup(name);
    if (!l.available()) {
      return new CandidateReport(
          name, l.factory() == null ? Verdict.MISSING : Verdict.LOAD_FAILED, l.failure());
    }
    Provider p = l.provider();
    try {
      ProviderDirectory.newEngine(p, a);
    } catch (GeneralSecurityException | RuntimeException e) {
      return new CandidateReport(
          name, Verdict.NO_SERVICE, "does not offer " + a + " (" + e.getMessage() + ")");
    }
    if (!config.selfTest()) {
      return new CandidateReport(
          name, Verdict.CHOSEN, "admitted without known-answer tests (self-test=\"false\")");
    }
    SelfTestResult r =
        selfTests.computeIfAbsent(name + '\u0000' + a.jcaName(), k -> KnownAnswers.run(p, a));
    if (!r.passed()) {
      return new CandidateReport(name, Verdict.SELF_TEST_FAILED, r.summary());
    }
    return new CandidateReport(
        name,
        Verdict.CHOSEN,
        r.summary() + " in " + TimeUnit.NANOSECONDS.toMillis(r.nanos()) + " ms");
  }

  private LongAdder counter(Algorithm a, String provider) {
    return counters.computeIfAbsent(a.jcaName() + '\u0000' + provider, k -> new LongAdder());
  }

  /** Operation counts per algorithm and provider, for the status view. */
  Map<String, Long> operationCounts(Algorithm a) {
    Map<String, Long> m = new LinkedHashMap<>();
    String prefix = a.jcaName() + '\u0000';
    counters.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            m.put(k.substring(prefix.length()), v.sum());
          }
        });
    return m;
  }
}
