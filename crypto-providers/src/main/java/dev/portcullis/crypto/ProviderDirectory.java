package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.spi.CryptoProviderFactory;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Provider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The providers this JVM can offer, by configuration name: found with {@link ServiceLoader}, each
 * loaded at most once and remembered with its failure if it did not load.
 */
public final class ProviderDirectory {
  private static final Logger log = LoggerFactory.getLogger(ProviderDirectory.class);

  private final Map<String, CryptoProviderFactory> factories;
  private final Map<String, Lookup> loaded = new ConcurrentHashMap<>();
  private final List<String> discoveryProblems;

  private ProviderDirectory(Map<String, CryptoProviderFactory> factories, List<String> problems) {
    this.factories = Collections.unmodifiableMap(factories);
    this.discoveryProblems = List.copyOf(problems);
  }

  /** Discovers every {@link CryptoProviderFactory} visible to the given class loader. */
  public static ProviderDirectory discover(ClassLoader loader) {
    Map<String, CryptoProviderFactory> found = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    ServiceLoader<CryptoProviderFactory> sl =
        ServiceLoader.load(CryptoProviderFactory.class, loader);
    var it = sl.iterator();
    while (true) {
      CryptoProviderFactory f;
      try {
        if (!it.hasNext()) {
          break;
        }
        f = it.next();
      } catch (ServiceConfigurationError | LinkageError e) {
        // A broken META-INF/services entry must not take the others down with it.
        problems.add(e.toString());
        log.warn("crypto provider factory could not be instantiated: {}", e.toString());
        log.debug("factory failure", e);
        continue;
      }
      CryptoProviderFactory clash = found.putIfAbsent(f.name(), f);
      if (clash != null) {
        log.warn(
            "two crypto provider factories are named {}: keeping {}, ignoring {}",
            f.name(),
            clash.getClass().getName(),
            f.getClass().getName());
      }
    }
    return new ProviderDirectory(found, problems);
  }

  /** Discovers factories with this class's own class loader. */
  public static ProviderDirectory discover() {
    return discover(ProviderDirectory.class.getClassLoader());
  }

  /** A directory of exactly these factories (tests, embedded use). */
  public static ProviderDirectory of(List<? extends CryptoProviderFactory> factories) {
    Map<String, CryptoProviderFactory> m = new LinkedHashMap<>();
    for (CryptoProviderFactory f : factories) {
      m.putIfAbsent(f.name(), f);
    }
    return new ProviderDirectory(m, List.of());
  }

  /** Names of all factories found, in discovery order. */
  public List<String> names() {
    return List.copyOf(factories.keySet());
  }

  /** Problems met while discovering factories (a broken services entry), for the status view. */
  public List<String> discoveryProblems() {
    return discoveryProblems;
  }

  /**
   * The provider named {@code name}, loading it on first request. The result (provider or failure)
   * is kept for the life of the JVM: a provider whose native library did not load will not load a
   * minute later either, and loading twice could register natives twice.
   */
  public Lookup lookup(String name) {
    return loaded.computeIfAbsent(name, this::load);
  }

  private Lookup load(String name) {
    CryptoProviderFactory f = factories.get(name);
    if (f == null) {
      return Lookup.missing(
          name, "not installed: no provider factory named " + name + " (known: " + names() + ")");
    }
    try {
      Provider p = f.create();
      if (p == null) {
        return Lookup.failed(name, f, "factory returned no provider", null);
      }
      log.debug("loaded crypto provider {}: {} {}", name, p.getName(), p.getVersionStr());
      return new Lookup(name, f, p, null, null);
    } catch (Throwable t) { // NOPMD: a provider may fail with LinkageError; that is a status
      log.debug("crypto provider {} failed to load", name, t);
      return Lookup.failed(name, f, "failed to load: " + describe(t), t);
    }
  }

  private static String describe(Throwable t) {
    // The first cause usually names the missing library or class; keep the chain short.
    StringBuilder sb = new StringBuilder(String.valueOf(t));
    Throwable c = t.getCause();
    for (int i = 0; c != null && i < 3; i++, c = c.getCause()) {
      sb.append(" <- ").append(c);
    }
    return sb.toString();
  }

  /**
   * The result of looking a provider up.
   *
   * @param provider the loaded provider, or null if it is missing or failed
   * @param failure why it is not available, or null
   * @param cause the exception behind the failure, or null
   */
  public record Lookup(
      String name,
      CryptoProviderFactory factory,
      Provider provider,
      String failure,
      Throwable cause) {

    static Lookup missing(String name, String why) {
      return new Lookup(name, null, null, why, null);
    }

    static Lookup failed(String name, CryptoProviderFactory f, String why, Throwable cause) {
      return new Lookup(name, f, null, why, cause);
    }

    public boolean available() {
      return provider != null;
    }

    /** True if the provider loaded and can make an engine for {@code algorithm}. */
    public boolean offers(Algorithm algorithm) {
      if (provider == null) {
        return false;
      }
      try {
        newEngine(provider, algorithm);
        return true;
      } catch (GeneralSecurityException | RuntimeException e) {
        return false;
      }
    }
  }

  /** Makes an engine of the algorithm's kind; throws if the provider does not offer it. */
  static Object newEngine(Provider p, Algorithm a) throws GeneralSecurityException {
    switch (a.kind()) {
      case MAC:
        return Mac.getInstance(a.jcaName(), p);
      case CIPHER:
        return Cipher.getInstance(a.jcaName(), p);
      case DIGEST:
        return MessageDigest.getInstance(a.jcaName(), p);
      default:
        throw new AssertionError(a.kind());
    }
  }
}
