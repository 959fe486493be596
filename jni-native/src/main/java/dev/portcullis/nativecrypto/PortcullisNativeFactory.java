package dev.portcullis.nativecrypto;

import dev.portcullis.crypto.spi.CryptoProviderFactory;
import dev.portcullis.crypto.spi.JcaOneShotMac;
import dev.portcullis.crypto.spi.OneShotMac;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.Provider;
import java.util.Arrays;
import javax.crypto.SecretKey;

/**
 * Brings {@link PortcullisNativeProvider} to the crypto registry (found by {@code ServiceLoader}),
 * with the registry's hot path for its HMACs: one native call per MAC.
 */
public final class PortcullisNativeFactory implements CryptoProviderFactory {
  @Override
  public String name() {
    return PortcullisNativeProvider.NAME;
  }

  @Override
  public String description() {
    return "Portcullis JNI provider over "
        + (NativeCrypto.isAvailable() ? NativeCrypto.openSslVersion() : "OpenSSL 3 (not loaded)");
  }

  @Override
  public Provider create() {
    NativeCrypto.ensureAvailability();
    return new PortcullisNativeProvider();
  }

  @Override
  public OneShotMac newOneShotMac(Provider provider, String algorithm, SecretKey key)
      throws GeneralSecurityException {
    NativeHmac.Digest d = digest(algorithm);
    if (!(provider instanceof PortcullisNativeProvider) || d == null) {
      return JcaOneShotMac.create(provider, algorithm, key);
    }
    byte[] k = key.getEncoded();
    if (k == null) {
      throw new InvalidKeyException("the key has no encoding");
    }
    try {
      return new NativeOneShotMac(NativeHmac.create(d, k));
    } finally {
      Arrays.fill(k, (byte) 0);
    }
  }

  private static NativeHmac.Digest digest(String algorithm) {
    switch (algorithm) {
      case "HmacMD5":
        return NativeHmac.Digest.MD5;
      case "HmacSHA1":
        return NativeHmac.Digest.SHA1;
      case "HmacSHA256":
        return NativeHmac.Digest.SHA256;
      case "HmacSHA384":
        return NativeHmac.Digest.SHA384;
      case "HmacSHA512":
        return NativeHmac.Digest.SHA512;
      default:
        return null;
    }
  }

  /** The hot path: each MAC is one JNI call on a context keyed once. */
  static final class NativeOneShotMac implements OneShotMac {
    private final NativeHmac hmac;

    NativeOneShotMac(NativeHmac hmac) {
      this.hmac = hmac;
    }

    @Override
    public int macLength() {
      return hmac.digest.length;
    }

    @Override
    public int mac(byte[] in, int off, int len, byte[] out, int outOff) {
      return hmac.oneShot(in, off, len, out, outOff);
    }

    @Override
    public int mac(ByteBuffer in, byte[] out, int outOff) {
      return hmac.oneShot(in, out, outOff);
    }

    @Override
    public void close() {
      hmac.close();
    }
  }
}
