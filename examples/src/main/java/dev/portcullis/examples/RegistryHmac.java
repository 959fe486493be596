package dev.portcullis.examples;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.support.ConfigException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * An application that takes its HMAC keys from the crypto provider registry and switches the
 * provider serving HMAC-SHA-256 while it runs, without touching its keys: a {@link MacKey} follows
 * the registry's table, so every MAC after a switch is computed by the new provider, and the tags
 * stay the same (the same algorithm, the same key).
 *
 * <p>It starts on SunJCE, moves to Bouncy Castle, then asks for Portcullis' own JNI provider over
 * OpenSSL with SunJCE behind it: where the native library cannot load, the registry passes over it
 * and says why, and SunJCE serves. Run it with {@code java --enable-native-access=ALL-UNNAMED -cp
 * ... dev.portcullis.examples.RegistryHmac}.
 */
public final class RegistryHmac {
  private RegistryHmac() {}

  public static void main(String[] args) throws Exception {
    List<String> served = run(System.out);
    System.exit(served.size() == 3 ? 0 : 1);
  }

  private static CryptoConfig hmacFrom(String... providers) {
    return CryptoConfig.builder()
        .source("RegistryHmac example")
        .defaults("SunJCE", "SUN", "BC")
        .prefer(Algorithm.HMAC_SHA256, providers)
        .build();
  }

  /**
   * Computes and checks one tag under each of three tables.
   *
   * @return the provider that served HMAC-SHA-256 under each table, in order
   */
  static List<String> run(PrintStream out) throws ConfigException {
    byte[] message = "GET /printers/3 HTTP/1.1".getBytes(StandardCharsets.US_ASCII);
    List<String> served = new ArrayList<>();
    try (CryptoRegistry registry = CryptoRegistry.create(hmacFrom("SunJCE"))) {
      byte[] secret = new byte[32];
      new SecureRandom().nextBytes(secret);
      MacKey key = registry.macKey(Algorithm.HMAC_SHA256, secret);
      Arrays.fill(secret, (byte) 0); // the handle holds its own copy
      try {
        byte[] first = key.compute(message);
        served.add(key.provider());
        out.printf("%-16s tag %s%n", key.provider(), HexFormat.of().formatHex(first, 0, 8));

        for (CryptoConfig next : List.of(hmacFrom("BC"), hmacFrom("PortcullisNative", "SunJCE"))) {
          // Tested (known-answer tests) and pre-warmed before it is published; work in flight
          // finishes on the old table.
          registry.reconfigure(next);
          byte[] tag = key.compute(message);
          served.add(key.provider());
          out.printf("%-16s tag %s%n", key.provider(), HexFormat.of().formatHex(tag, 0, 8));
          // Tags are checked in constant time, never with Arrays.equals.
          if (!key.verify(message, 0, message.length, first, 0, first.length)) {
            throw new IllegalStateException(key.provider() + " computed another tag");
          }
        }
      } finally {
        key.destroy(); // the key bytes are wiped
      }
    }
    return served;
  }
}
