package dev.portcullis.nativecrypto;

import java.security.Provider;

/**
 * The {@code PortcullisNative} JCA provider: OpenSSL 3 libcrypto through JNI. Registers its
 * services only when the native library loaded; otherwise it offers nothing, and {@link
 * NativeCrypto#unavailabilityCause()} says why.
 */
public final class PortcullisNativeProvider extends Provider {
  private static final long serialVersionUID = 1L;

  public static final String NAME = "PortcullisNative";

  public PortcullisNativeProvider() {
    super(NAME, "0.1", "Portcullis JNI provider over OpenSSL 3 libcrypto");
    if (!NativeCrypto.isAvailable()) {
      return;
    }
    String spi = NativeMacSpi.class.getName();
    put("Mac.HmacMD5", spi + "$HmacMD5");
    put("Mac.HmacSHA1", spi + "$HmacSHA1");
    put("Mac.HmacSHA256", spi + "$HmacSHA256");
    put("Mac.HmacSHA384", spi + "$HmacSHA384");
    put("Mac.HmacSHA512", spi + "$HmacSHA512");
    String digest = NativeDigestSpi.class.getName();
    put("MessageDigest.SHA-256", digest + "$SHA256");
    put("MessageDigest.SHA-512", digest + "$SHA512");
    put("Cipher.AES/GCM/NoPadding", NativeAesGcmSpi.class.getName());
    String stream = NativeAesStreamSpi.class.getName();
    put("Cipher.AES/CTR/NoPadding", stream + "$Ctr");
    put("Cipher.AES/CBC/PKCS5Padding", stream + "$Cbc");
  }
}
