package dev.portcullis.crypto.spi;

import java.security.GeneralSecurityException;
import java.security.Provider;
import javax.crypto.SecretKey;

/**
 * Supplies one JCA provider to the registry under the name the configuration uses for it.
 *
 * <p>Implementations are discovered with {@link java.util.ServiceLoader}, so a module that brings a
 * provider (our own JNI provider, say) only has to list its factory in {@code
 * META-INF/services/dev.portcullis.crypto.spi.CryptoProviderFactory}; the registry does not depend
 * on it. The registry calls {@link #create()} at most once per JVM and keeps the result, or the
 * failure.
 */
public interface CryptoProviderFactory {

  /**
   * The name the configuration file uses, e.g. {@code SunJCE}, {@code BC}, {@code ACCP}. Names are
   * case-sensitive and unique; the first factory found wins a clash.
   */
  String name();

  /** One line for status tables: what the provider is and what it is built on. */
  String description();

  /**
   * Loads the provider. Any {@link Throwable} (a missing class, a native library that does not
   * load, a failed health check) means "not available here"; the registry records it as the reason
   * and moves on to the next provider in the list.
   *
   * @return the provider, never null
   * @throws Exception if the provider cannot be loaded on this machine
   */
  Provider create() throws Exception;

  /**
   * A keyed one-shot MAC for the registry's hot path. The default wraps {@link javax.crypto.Mac}; a
   * provider with a cheaper path (one native call per MAC) overrides it.
   *
   * @param provider the provider this factory created
   * @param algorithm the JCA MAC name, e.g. {@code HmacSHA256}
   * @param key the key; implementations copy what they need and do not keep the object
   */
  default OneShotMac newOneShotMac(Provider provider, String algorithm, SecretKey key)
      throws GeneralSecurityException {
    return JcaOneShotMac.create(provider, algorithm, key);
  }
}
