package dev.portcullis.pdp.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.LoggingEvent;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped log pattern masks control characters in messages: text a peer chose (a PEPID with a
 * line break, say) cannot forge a log line of its own.
 */
class LogPatternTest {
  @Test
  void aLineBreakInAMessageCannotStartALine() throws Exception {
    String xml;
    try (InputStream in =
        LogPatternTest.class.getResourceAsStream("/dev/portcullis/pdp/cli/logback-pdp.xml")) {
      xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher m = Pattern.compile("<pattern>(.*)</pattern>").matcher(xml);
    assertTrue(m.find(), xml);
    LoggerContext context = new LoggerContext();
    PatternLayout layout = new PatternLayout();
    layout.setContext(context);
    layout.setPattern(m.group(1));
    layout.start();
    LoggingEvent e =
        new LoggingEvent(
            "x",
            context.getLogger("PdpStateMachine"),
            Level.INFO,
            "PEP {} opened",
            null,
            new Object[] {"gw\n12:00:00.000 WARN  Forged - line\r"});
    String line = layout.doLayout(e);
    assertEquals(1, line.split("\n", -1).length - 1, line);
    assertTrue(line.contains("PEP gw?12:00:00.000 WARN  Forged - line? opened"), line);
  }
}
