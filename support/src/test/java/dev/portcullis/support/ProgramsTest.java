package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.Arrays;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * What Bouncy Castle's JSSE logs through java.util.logging reaches SLF4J, and JUL's own console
 * handler (which wrote those lines to stderr in its own format) is gone.
 */
class ProgramsTest {
  @Test
  void javaUtilLoggingGoesThroughSlf4jOnly() {
    Programs.routeJulToSlf4j();
    Programs.routeJulToSlf4j(); // twice: still one bridge
    Handler[] handlers = LogManager.getLogManager().getLogger("").getHandlers();
    assertEquals(1, handlers.length, Arrays.toString(handlers));
    assertTrue(handlers[0] instanceof SLF4JBridgeHandler, Arrays.toString(handlers));

    Logger bc = (Logger) LoggerFactory.getLogger("org.bouncycastle.jsse.provider.Test");
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    bc.addAppender(seen);
    try {
      java.util.logging.Logger.getLogger("org.bouncycastle.jsse.provider.Test")
          .log(Level.WARNING, "a JUL warning");
      assertEquals(1, seen.list.size());
      assertEquals("a JUL warning", seen.list.get(0).getFormattedMessage());
      assertEquals(ch.qos.logback.classic.Level.WARN, seen.list.get(0).getLevel());
    } finally {
      bc.detachAppender(seen);
    }
  }
}
