package dev.portcullis.bench.compress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.bench.compress.SpeedupModel.Security;
import org.junit.jupiter.api.Test;

/**
 * The model against the paper's own numbers (McGregor and Lee's compression paper, tables 1 and 2).
 */
class SpeedupModelTest {
  private static final double M = 1e6;
  // Table 1, 4 KB payloads, Mbps.
  private static final double MD5 = 299 * M;
  private static final double SHA1 = 274 * M;
  private static final double RC5 = 97 * M;
  private static final double DES3 = 28 * M;

  private static double s(double linkMbps, Security sec) {
    return SpeedupModel.securitySpeedup(SpeedupModel.effective(linkMbps * M, 0.8), sec);
  }

  /** Table 2 (speedups with authentication and encryption), within the 0.02 its headers make. */
  @Test
  void reproducesTable2() {
    Security md5 = new Security(0, 0, MD5, MD5);
    Security sha1 = new Security(0, 0, SHA1, SHA1);
    Security rc5 = new Security(RC5, RC5, 0, 0);
    Security rc5Md5 = new Security(RC5, RC5, MD5, MD5);
    Security des3 = new Security(DES3, DES3, 0, 0);
    Security des3Sha1 = new Security(DES3, DES3, SHA1, SHA1);
    double[][] expected = {
      // MD5, SHA-1, RC5, RC5 MD5, 3DES, 3DES SHA-1
      {0.99, 0.99, 0.99, 0.99, 0.99, 0.98}, // 56 kbps
      {0.99, 0.98, 0.97, 0.96, 0.92, 0.90}, // 1.54 Mbps
      {0.94, 0.94, 0.86, 0.82, 0.64, 0.62}, // 10 Mbps
      {0.65, 0.63, 0.39, 0.32, 0.15, 0.14}, // 100 Mbps
      {0.16, 0.15, 0.06, 0.04, 0.02, 0.02}, // 1 Gbps
    };
    double[] links = {0.056, 1.54, 10, 100, 1000};
    Security[] combos = {md5, sha1, rc5, rc5Md5, des3, des3Sha1};
    for (int i = 0; i < links.length; i++) {
      for (int j = 0; j < combos.length; j++) {
        assertEquals(expected[i][j], s(links[i], combos[j]), 0.021, links[i] + " Mbps, " + j);
      }
    }
  }

  @Test
  void theInequalityAgreesWithTheSpeedupAndItsBreakEven() {
    Security des3Sha1 = new Security(DES3, DES3, SHA1, SHA1);
    double link = SpeedupModel.effective(100 * M, 0.8);
    double comp = 40 * M;
    double decomp = 120 * M;
    double x = SpeedupModel.breakEvenRatio(link, des3Sha1, comp, decomp);
    assertTrue(x > 1 && x < 10, "break-even ratio " + x);
    assertEquals(1, SpeedupModel.compressionSpeedup(link, des3Sha1, x, comp, decomp), 1e-9);
    assertTrue(SpeedupModel.compressionHelps(link, des3Sha1, x * 1.01, comp, decomp));
    assertFalse(SpeedupModel.compressionHelps(link, des3Sha1, x * 0.99, comp, decomp));
    assertTrue(SpeedupModel.compressionSpeedup(link, des3Sha1, x * 2, comp, decomp) > 1);
  }

  /** Section 7's findings: slow links gain from compression, fast ones with no crypto do not. */
  @Test
  void slowLinksGainFastUnsecuredLinksDoNot() {
    double comp = 20 * M; // DEFLATE on the paper's machine, about
    double decomp = 60 * M;
    double slow = SpeedupModel.effective(1.54 * M, 0.8);
    double fast = SpeedupModel.effective(1000 * M, 0.8);
    assertTrue(SpeedupModel.compressionSpeedup(slow, Security.NONE, 2, comp, decomp) > 1.5);
    assertTrue(SpeedupModel.compressionSpeedup(fast, Security.NONE, 2, comp, decomp) < 0.1);
    assertEquals(
        Double.POSITIVE_INFINITY, SpeedupModel.breakEvenRatio(fast, Security.NONE, comp, decomp));
  }
}
