package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How the harness's rounds follow from its options. */
class CostOfSecurityOptionsTest {
  private static CostOfSecurity parse(String... args) {
    CostOfSecurity c = new CostOfSecurity();
    new CommandLine(c).parseArgs(args);
    return c;
  }

  @Test
  void byDefaultEveryRoundHoldsFiveTrialsOfEveryCell() {
    assertEquals(20, parse().rounds());
    assertEquals(1, parse("--trials", "7").rounds());
    assertEquals(1, parse("--trials", "2").rounds());
    assertEquals(List.of(), parse("--trials", "7").problems());
    assertEquals(3, parse("--trials", "7", "--rounds", "3").rounds());
  }

  @Test
  void moreRoundsThanTrialsIsAMistakeNamedBeforeMeasuring() {
    List<String> p = parse("--trials", "5", "--rounds", "6").problems();
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).startsWith("--rounds 6: 1 to --trials (5)"), p.get(0));
  }
}
