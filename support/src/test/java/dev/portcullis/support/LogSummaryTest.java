package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LogSummaryTest {
  @Test
  void aFloodIsTwoLinesPerKind() {
    Logger logger = (Logger) LoggerFactory.getLogger("LogSummaryTest");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    Instant[] now = {Instant.ofEpochSecond(1_000)};
    Clock clock =
        new Clock() {
          @Override
          public ZoneOffset getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now[0];
          }
        };
    LogSummary s = new LogSummary(logger, "refusals", Duration.ofMinutes(1), clock);
    for (int i = 0; i < 20_000; i++) {
      s.warn(i % 2 == 0 ? "bad signature" : "malformed", "refused {}", i);
    }
    assertEquals(2, lines.list.size(), "the first of each kind");
    now[0] = now[0].plusSeconds(61);
    s.warn("malformed", "refused {}", "late");
    List<String> m = lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertEquals(
        "19998 more refusals in the last 61 s, not logged one by one (bad signature: 9999,"
            + " malformed: 9999)",
        m.get(2));
    assertEquals("refused late", m.get(3));
    s.flush();
    assertEquals(4, lines.list.size(), "nothing held back: no summary");
  }
}
