package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void doublesUpToTheMaximumAndStartsAgainAfterAReset() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMillis(500));
    assertEquals(100, b.nextDelayMillis());
    assertEquals(200, b.nextDelayMillis());
    assertEquals(400, b.nextDelayMillis());
    assertEquals(500, b.nextDelayMillis());
    assertEquals(500, b.nextDelayMillis());
    b.reset();
    assertEquals(100, b.nextDelayMillis());
  }

  @Test
  void refusesNonsense() {
    assertThrows(
        IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
  }
}
