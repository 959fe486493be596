package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
  @Test
  void isoAndUnitFormsMeanTheSame() {
    assertEquals(Duration.ofHours(24), Durations.parse("PT24H"));
    assertEquals(Duration.ofHours(24), Durations.parse("24h"));
    assertEquals(Duration.ofDays(7), Durations.parse("P7D"));
    assertEquals(Duration.ofDays(7), Durations.parse("7d"));
    assertEquals(Duration.ofMinutes(90), Durations.parse("1h30m"));
    assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
    assertEquals(Duration.ofSeconds(30), Durations.parse(" 30s "));
    assertEquals(Duration.ofSeconds(30), Durations.parse("pt30s"));
    assertEquals(Duration.ZERO, Durations.parse("0s"));
  }

  @Test
  void aMistakeNamesTheTextAndTheForms() {
    for (String bad : new String[] {"", "24", "h", "24x", "-5s", "P1M", "P1Y", "1.5h", "PT-1S"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Durations.parse(bad), bad);
      assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
      assertTrue(e.getMessage().contains("24h"), e.getMessage());
    }
  }
}
