package dev.portcullis.cops.tls;

import java.lang.reflect.Method;
import javax.net.ssl.SSLEngine;

/** Reaches the engine inside Conscrypt's wrapper (package-private API, so reflection). */
final class ConscryptEngines {
  private static final Method GET_DELEGATE = find();

  private ConscryptEngines() {}

  private static Method find() {
    try {
      Method m =
          Class.forName("org.conscrypt.Java8EngineWrapper")
              .getDeclaredMethod("getDelegate", SSLEngine.class);
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null; // resumption then reads as unknown
    }
  }

  static SSLEngine delegate(SSLEngine e) {
    if (GET_DELEGATE == null) {
      return null;
    }
    try {
      return (SSLEngine) GET_DELEGATE.invoke(null, e);
    } catch (ReflectiveOperationException | RuntimeException x) {
      return null;
    }
  }
}
