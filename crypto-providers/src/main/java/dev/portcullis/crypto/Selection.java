package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.spi.CryptoProviderFactory;
import java.security.Provider;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The provider chosen for one algorithm in one table, and the report on every candidate.
 *
 * @param providerName the configuration name of the chosen provider
 * @param provider the chosen provider
 * @param factory the factory that made it (used for its one-shot MAC path)
 * @param candidates every provider in the algorithm's list, in order, with its verdict
 * @param operations hot-path operations served by this provider for this algorithm since the
 *     registry started (shared across tables)
 */
public record Selection(
    Algorithm algorithm,
    String providerName,
    Provider provider,
    CryptoProviderFactory factory,
    List<CandidateReport> candidates,
    LongAdder operations) {

  public Selection {
    candidates = List.copyOf(candidates);
  }

  /** The chosen candidate's report (self-test summary). */
  public CandidateReport chosen() {
    return candidates.stream()
        .filter(c -> c.verdict() == CandidateReport.Verdict.CHOSEN)
        .findFirst()
        .orElseThrow();
  }
}
