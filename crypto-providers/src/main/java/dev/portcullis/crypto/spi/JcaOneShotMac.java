package dev.portcullis.crypto.spi;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.Provider;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.ShortBufferException;

/** {@link OneShotMac} over a keyed {@link Mac}: update, then doFinal into the caller's array. */
public final class JcaOneShotMac implements OneShotMac {
  private final Mac mac;

  private JcaOneShotMac(Mac mac) {
    this.mac = mac;
  }

  /** A keyed instance of {@code algorithm} from {@code provider}. */
  public static JcaOneShotMac create(Provider provider, String algorithm, SecretKey key)
      throws GeneralSecurityException {
    Mac mac = Mac.getInstance(algorithm, provider);
    mac.init(key);
    return new JcaOneShotMac(mac);
  }

  @Override
  public int macLength() {
    return mac.getMacLength();
  }

  @Override
  public int mac(byte[] in, int off, int len, byte[] out, int outOff) {
    mac.update(in, off, len);
    return finish(out, outOff);
  }

  @Override
  public int mac(ByteBuffer in, byte[] out, int outOff) {
    mac.update(in);
    return finish(out, outOff);
  }

  private int finish(byte[] out, int outOff) {
    try {
      mac.doFinal(out, outOff);
      return mac.getMacLength();
    } catch (ShortBufferException e) {
      throw new IllegalArgumentException(
          "out: " + (out.length - outOff) + " bytes free (expected: " + mac.getMacLength() + ")",
          e);
    }
  }
}
