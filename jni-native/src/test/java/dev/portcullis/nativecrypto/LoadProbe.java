package dev.portcullis.nativecrypto;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;

/** Run in a separate JVM by {@link LoadingFailureTest}: reports what the registry chose and why. */
public final class LoadProbe {
  private LoadProbe() {}

  public static void main(String[] args) throws Exception {
    System.out.println("available=" + NativeCrypto.isAvailable());
    System.out.println("cause=" + NativeCrypto.unavailabilityCause());
    System.out.println("services=" + new PortcullisNativeProvider().getServices().size());
    try (CryptoRegistry r =
        CryptoRegistry.create(
            CryptoConfig.builder()
                .defaults("SunJCE", "SUN")
                .prefer(Algorithm.HMAC_SHA256, "PortcullisNative", "SunJCE")
                .prewarm(false)
                .build())) {
      System.out.println("HmacSHA256=" + r.providerFor(Algorithm.HMAC_SHA256));
      System.out.println(r.status().format());
    }
  }
}
