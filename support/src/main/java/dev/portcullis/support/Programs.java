package dev.portcullis.support;

import java.util.concurrent.CountDownLatch;
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
   * Closes {@code c} when the process is asked to stop (SIGTERM, Ctrl-C: a shutdown hook named
   * {@code name}); a server command then prints its "listening" line and waits with {@link
   * Stop#await}, which returns once {@code c} is closed, or at {@link Stop#release} (the server
   * stopped on its own). A failure while closing is one line on stderr: the process is ending.
   */
  public static Stop closeOnStop(String name, AutoCloseable c) {
    Stop stop = new Stop();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    c.close();
                  } catch (Exception e) {
                    System.err.println(name + ": while stopping: " + e);
                  }
                  stop.release();
                },
                name));
    return stop;
  }

  /** What a server command waits on until it is stopped ({@link #closeOnStop}). */
  public static final class Stop {
    private final CountDownLatch latch = new CountDownLatch(1);

    /** Lets {@link #await} return. */
    public void release() {
      latch.countDown();
    }

    /** Waits until the process is asked to stop and the server is closed, or {@link #release}. */
    public void await() {
      try {
        latch.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
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
