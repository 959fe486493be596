package dev.portcullis.pdp;

import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.crypto.Algorithm;
import dev.portcullis.crypto.Digester;
import java.util.List;

/**
 * SHA-256 for the PDP's tools that run without a PDP configuration (verifying an audit file, the
 * tests): the crypto registry's built-in defaults, made on first use. A running PDP hashes with the
 * registry of its own {@code <crypto config=...>} instead.
 */
final class BuiltInCrypto {
  private BuiltInCrypto() {}

  private static final class Holder {
    static final Digester SHA256 = IntegrityKeys.registry(List.of()).digester(Algorithm.SHA_256);
  }

  static Digester sha256() {
    return Holder.SHA256;
  }
}
