package dev.portcullis.support;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The lines a logger (and its children) writes while open, for tests that check what an operator
 * would read: {@code try (LogLines log = LogLines.of(PdpServer.class)) { ...; log.warnings() }}. In
 * the support module's test jar, for every module's tests.
 */
public final class LogLines implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  private LogLines(Logger logger) {
    this.logger = logger;
    lines.start();
    logger.addAppender(lines);
  }

  /** Captures what {@code type}'s logger writes. */
  public static LogLines of(Class<?> type) {
    return new LogLines((Logger) LoggerFactory.getLogger(type));
  }

  /** Captures what every logger writes. */
  public static LogLines all() {
    return new LogLines((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME));
  }

  /** Every line so far, formatted, whatever its level. */
  public List<String> lines() {
    synchronized (lines) {
      return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }

  /** The WARN lines so far, formatted. */
  public List<String> warnings() {
    synchronized (lines) { // the lock the appender appends under, on whichever thread logs
      return lines.list.stream()
          .filter(e -> e.getLevel() == Level.WARN)
          .map(ILoggingEvent::getFormattedMessage)
          .toList();
    }
  }

  @Override
  public void close() {
    logger.detachAppender(lines);
  }
}
