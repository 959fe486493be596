package dev.portcullis.audit;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.support.ConfigException;

/**
 * SHA-256 for the tools that run without a component's configuration (verifying an audit file, the
 * tests): the crypto registry's built-in defaults, made on first use. A running PDP or proxy hashes
 * with the registry of its own {@code <crypto config=...>} instead.
 */
final class BuiltInCrypto {
  private BuiltInCrypto() {}

  private static final class Holder {
    static final Digester SHA256 = create();

    private static Digester create() {
      try {
        return CryptoRegistry.create(
                CryptoConfig.builder().defaults("SunJCE", "SUN").prewarm(false).build())
            .digester(Algorithm.SHA_256);
      } catch (ConfigException e) {
        throw new IllegalStateException("the built-in crypto defaults do not open: " + e, e);
      }
    }
  }

  static Digester sha256() {
    return Holder.SHA256;
  }
}
