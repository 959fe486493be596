package dev.portcullis.support;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

/**
 * The threads the product makes that are not Netty's event loops: each one named (a thread dump, a
 * profile and a log line say whose it is) and a daemon (a server stops by its {@code Lifecycle},
 * never because a forgotten thread holds the JVM up or down). Most are the one owner of a piece of
 * state that has no channel (docs/architecture.md, "Who owns each piece of state").
 */
public final class Threads {
  private Threads() {}

  /** Makes daemon threads named {@code name}. */
  public static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** One daemon thread named {@code name}, running what it is given in order, and its timers. */
  public static ScheduledExecutorService owner(String name) {
    return Executors.newSingleThreadScheduledExecutor(daemon(name));
  }

  /** Starts {@code task} on a daemon thread of its own named {@code name}. */
  public static Thread start(String name, Runnable task) {
    Thread t = daemon(name).newThread(task);
    t.start();
    return t;
  }
}
