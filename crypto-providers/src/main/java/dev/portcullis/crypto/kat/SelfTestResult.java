package dev.portcullis.crypto.kat;

/**
 * The outcome of running the known-answer tests of one algorithm against one provider.
 *
 * @param passed true if every applicable vector gave the known answer
 * @param vectors how many vectors ran
 * @param skipped vectors with non-standard parameters the provider declined (an AES-GCM IV that is
 *     not 96 bits, AES-192), which Portcullis never uses; declining is not a failure, a wrong
 *     answer is
 * @param detail empty when passed; otherwise the first failing vector and what went wrong
 * @param nanos time the tests took
 */
public record SelfTestResult(boolean passed, int vectors, int skipped, String detail, long nanos) {

  /** One line for logs and status tables. */
  public String summary() {
    String s = vectors + " vectors" + (skipped > 0 ? " (" + skipped + " declined)" : "");
    return passed ? "passed " + s : "FAILED (" + vectors + " passed before): " + detail;
  }
}
