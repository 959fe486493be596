package dev.portcullis.crypto.spi;

import java.lang.reflect.InvocationTargetException;
import java.security.Provider;
import java.security.Security;

/**
 * Factories for the providers Portcullis knows without any extra module. The third-party ones are
 * reached reflectively so that their jars stay optional at run time: a deployment that drops
 * Conscrypt gets "missing" in the status table, not a {@link NoClassDefFoundError} at start.
 */
public final class BuiltinProviderFactories {
  private BuiltinProviderFactories() {}

  /** The JDK's JCE provider: MACs and ciphers. */
  public static final class SunJce extends JdkProvider {
    public SunJce() {
      super("SunJCE", "JDK JCE provider (pure Java, HotSpot intrinsics for AES and GHASH)");
    }
  }

  /** The JDK's {@code SUN} provider, which holds the message digests. */
  public static final class Sun extends JdkProvider {
    public Sun() {
      super("SUN", "JDK SUN provider (message digests; SHA-2 intrinsics)");
    }
  }

  /** Bouncy Castle, pure Java. */
  public static final class BouncyCastle implements CryptoProviderFactory {
    @Override
    public String name() {
      return "BC";
    }

    @Override
    public String description() {
      return "Bouncy Castle (pure Java)";
    }

    @Override
    public Provider create() throws Exception {
      return (Provider)
          newInstance("org.bouncycastle.jce.provider.BouncyCastleProvider", "bcprov-jdk18on");
    }
  }

  /** Conscrypt, JNI over BoringSSL. */
  public static final class Conscrypt implements CryptoProviderFactory {
    @Override
    public String name() {
      return "Conscrypt";
    }

    @Override
    public String description() {
      return "Conscrypt (JNI over BoringSSL)";
    }

    @Override
    public Provider create() throws Exception {
      Class<?> c = load("org.conscrypt.Conscrypt", "conscrypt-openjdk-uber");
      try {
        // Throws the native loading error (UnsatisfiedLinkError) with its cause when the bundled
        // BoringSSL library does not load on this platform.
        c.getMethod("checkAvailability").invoke(null);
        return (Provider) c.getMethod("newProvider").invoke(null);
      } catch (InvocationTargetException e) {
        throw unwrap(e);
      }
    }
  }

  /** Amazon Corretto Crypto Provider, JNI over AWS-LC. */
  public static final class Accp implements CryptoProviderFactory {
    @Override
    public String name() {
      return "ACCP";
    }

    @Override
    public String description() {
      return "Amazon Corretto Crypto Provider (JNI over AWS-LC)";
    }

    @Override
    public Provider create() throws Exception {
      Class<?> c =
          load(
              "com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider",
              "AmazonCorrettoCryptoProvider (classifier linux-x86_64)");
      try {
        Provider p = (Provider) c.getField("INSTANCE").get(null);
        Object loadingError = c.getMethod("getLoadingError").invoke(p);
        if (loadingError instanceof Throwable) {
          throw new IllegalStateException(
              "ACCP native library did not load", (Throwable) loadingError);
        }
        // Runs ACCP's own self-tests and throws if any failed.
        c.getMethod("assertHealthy").invoke(p);
        return p;
      } catch (InvocationTargetException e) {
        throw unwrap(e);
      }
    }
  }

  private abstract static class JdkProvider implements CryptoProviderFactory {
    private final String name;
    private final String description;

    JdkProvider(String name, String description) {
      this.name = name;
      this.description = description;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String description() {
      return description;
    }

    @Override
    public Provider create() {
      Provider p = Security.getProvider(name);
      if (p == null) {
        throw new IllegalStateException(
            "the JDK has no provider named " + name + " (removed from java.security?)");
      }
      return p;
    }
  }

  private static Class<?> load(String className, String artifact) throws ClassNotFoundException {
    try {
      return Class.forName(className, true, BuiltinProviderFactories.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new ClassNotFoundException(
          className + " is not on the class path (add the " + artifact + " jar)", e);
    }
  }

  private static Object newInstance(String className, String artifact) throws Exception {
    try {
      return load(className, artifact).getConstructor().newInstance();
    } catch (InvocationTargetException e) {
      throw unwrap(e);
    }
  }

  private static Exception unwrap(InvocationTargetException e) {
    Throwable cause = e.getCause();
    if (cause instanceof Exception) {
      return (Exception) cause;
    }
    // An Error such as UnsatisfiedLinkError: keep it as the cause so the status says why.
    return new IllegalStateException(String.valueOf(cause), cause);
  }
}
