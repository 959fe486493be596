package dev.portcullis.crypto;

/**
 * What happened to one provider in one algorithm's preference list when a table was built.
 *
 * @param provider the configuration name
 * @param verdict the outcome
 * @param detail why, in words; never key material
 */
public record CandidateReport(String provider, Verdict verdict, String detail) {

  /** The outcomes of considering a candidate. */
  public enum Verdict {
    /** Serves the algorithm. */
    CHOSEN,
    /** No factory of that name is installed. */
    MISSING,
    /** The factory could not load the provider (missing class, native library, health check). */
    LOAD_FAILED,
    /** The provider loaded but does not offer the algorithm. */
    NO_SERVICE,
    /** The provider gave a wrong answer or accepted an invalid input in a known-answer test. */
    SELF_TEST_FAILED,
    /** Lower in the list than the chosen provider, so not tried. */
    STANDBY
  }
}
