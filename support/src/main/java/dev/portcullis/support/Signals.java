package dev.portcullis.support;

import java.lang.reflect.Proxy;
import org.slf4j.Logger;

/**
 * POSIX signals for the daemons (SIGHUP: read the configuration again, as operators expect).
 * Reached reflectively: {@code sun.misc.Signal} is the JDK's only signal API and javac flags any
 * direct use of it; where it is missing, the components still reload through their file watches and
 * their Java APIs, and say so.
 */
public final class Signals {
  private Signals() {}

  /**
   * Runs {@code action} whenever the process receives signal {@code name} (e.g. "HUP").
   *
   * @param log where to say that the signal cannot be handled here
   * @return false if signals cannot be handled on this JVM
   */
  public static boolean on(String name, Runnable action, Logger log) {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handler = Class.forName("sun.misc.SignalHandler");
      Object h =
          Proxy.newProxyInstance(
              handler.getClassLoader(),
              new Class<?>[] {handler},
              (proxy, method, args) -> {
                switch (method.getName()) {
                  case "handle":
                    action.run();
                    return null;
                  case "hashCode":
                    return System.identityHashCode(proxy);
                  case "equals":
                    return proxy == args[0];
                  default:
                    return "signal handler for SIG" + name;
                }
              });
      Object old =
          signal
              .getMethod("handle", signal, handler)
              .invoke(null, signal.getConstructor(String.class).newInstance(name), h);
      if (old == handler.getField("SIG_IGN").get(null)) {
        // The JVM leaves a signal alone that the process was started ignoring (nohup does that to
        // SIGHUP): no handler was installed, and without this a reload signal did nothing,
        // silently.
        log.warn(
            "SIG{} is ignored by this process (started under nohup, or with SIG{} ignored), so it"
                + " reloads nothing; start it without, or use watch=\"true\" to reload",
            name,
            name);
        return false;
      }
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      log.info(
          "SIG{} handling not available here ({}); use watch=\"true\" to reload",
          name,
          e.toString());
      return false;
    }
  }
}
