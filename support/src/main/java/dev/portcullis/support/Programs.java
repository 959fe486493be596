package dev.portcullis.support;

import java.util.logging.Handler;
import java.util.logging.LogManager;
import org.slf4j.bridge.SLF4JBridgeHandler;

/** What every Portcullis command does first thing in {@code main}. */
public final class Programs {
  private Programs() {}

  /**
   * Applies the process-wide settings of a command: Netty's ({@link NettySetup#beforeNetty}), the
   * command's logback configuration unless {@code -Dlogback.configurationFile} names another, and
   * {@code java.util.logging} routed through SLF4J ({@link #routeJulToSlf4j}).
   *
   * @param logbackConfig the command's logback configuration on the class path, or null to leave
   *     logback's own lookup alone
   */
  public static void start(String logbackConfig) {
    NettySetup.beforeNetty();
    if (logbackConfig != null && System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", logbackConfig);
    }
    routeJulToSlf4j();
  }

  /**
   * Sends what is logged through {@code java.util.logging} to SLF4J instead of JUL's own console
   * handler: Bouncy Castle's JSSE logs there, and printed two unformatted lines to stderr on every
   * handshake, outside our format and levels. Our logback configurations then decide (they keep
   * {@code org.bouncycastle} at WARN, and propagate their levels to JUL so that records nobody
   * prints are not even made). Idempotent.
   */
  public static synchronized void routeJulToSlf4j() {
    if (SLF4JBridgeHandler.isInstalled()) {
      return;
    }
    java.util.logging.Logger root = LogManager.getLogManager().getLogger("");
    for (Handler h : root.getHandlers()) {
      root.removeHandler(h);
    }
    SLF4JBridgeHandler.install();
  }
}
