package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.spi.BuiltinProviderFactories;
import dev.portcullis.crypto.spi.CryptoProviderFactory;
import java.nio.ByteBuffer;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.NoSuchAlgorithmException;
import java.security.NoSuchProviderException;
import java.security.Provider;
import java.security.spec.AlgorithmParameterSpec;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.MacSpi;

/** Provider factories for tests: the built-ins plus deliberately faulty ones. */
public final class TestProviders {
  private TestProviders() {}

  /** Name of a provider whose HmacSHA256 returns a wrong MAC (one bit flipped). */
  public static final String BROKEN = "Broken";

  /** Name of a provider whose factory fails like a native library that does not load. */
  public static final String EXPLODING = "Exploding";

  public static List<CryptoProviderFactory> builtins() {
    return List.of(
        new BuiltinProviderFactories.SunJce(),
        new BuiltinProviderFactories.Sun(),
        new BuiltinProviderFactories.BouncyCastle(),
        new BuiltinProviderFactories.Conscrypt(),
        new BuiltinProviderFactories.Accp());
  }

  /** The built-ins plus {@link #BROKEN} and {@link #EXPLODING}. */
  public static ProviderDirectory withFaultyProviders() {
    List<CryptoProviderFactory> all = new ArrayList<>(builtins());
    all.add(new BrokenFactory());
    all.add(new ExplodingFactory());
    return ProviderDirectory.of(all);
  }

  /** Names of the built-in providers that load on this machine and offer {@code a}. */
  public static List<String> offering(Algorithm a) {
    ProviderDirectory d = ProviderDirectory.of(builtins());
    List<String> names = new ArrayList<>();
    for (String n : d.names()) {
      if (d.lookup(n).offers(a)) {
        names.add(n);
      }
    }
    return names;
  }

  public static final class BrokenFactory implements CryptoProviderFactory {
    @Override
    public String name() {
      return BROKEN;
    }

    @Override
    public String description() {
      return "test provider with a wrong HmacSHA256";
    }

    @Override
    public Provider create() {
      return new BrokenProvider();
    }
  }

  public static final class ExplodingFactory implements CryptoProviderFactory {
    @Override
    public String name() {
      return EXPLODING;
    }

    @Override
    public String description() {
      return "test provider that cannot load";
    }

    @Override
    public Provider create() {
      throw new UnsatisfiedLinkError("no libexploding.so in java.library.path");
    }
  }

  /** Registers one HmacSHA256 whose output has its first bit flipped. */
  public static final class BrokenProvider extends Provider {
    private static final long serialVersionUID = 1L;

    public BrokenProvider() {
      super(BROKEN, "1.0", "HmacSHA256 with a flipped bit, for admission tests");
      put("Mac.HmacSHA256", BrokenHmac.class.getName());
    }
  }

  /** SunJCE's HmacSHA256 with the first output bit flipped. */
  public static final class BrokenHmac extends MacSpi {
    private final Mac inner;

    public BrokenHmac() throws NoSuchAlgorithmException {
      try {
        inner = Mac.getInstance("HmacSHA256", "SunJCE");
      } catch (NoSuchProviderException e) {
        throw new NoSuchAlgorithmException(e);
      }
    }

    @Override
    protected int engineGetMacLength() {
      return inner.getMacLength();
    }

    @Override
    protected void engineInit(Key key, AlgorithmParameterSpec params) throws InvalidKeyException {
      try {
        inner.init(key, params);
      } catch (InvalidAlgorithmParameterException e) {
        throw new InvalidKeyException(e);
      }
    }

    @Override
    protected void engineUpdate(byte input) {
      inner.update(input);
    }

    @Override
    protected void engineUpdate(byte[] input, int offset, int len) {
      inner.update(input, offset, len);
    }

    @Override
    protected void engineUpdate(ByteBuffer input) {
      inner.update(input);
    }

    @Override
    protected byte[] engineDoFinal() {
      byte[] r = inner.doFinal();
      r[0] ^= 1;
      return r;
    }

    @Override
    protected void engineReset() {
      inner.reset();
    }
  }
}
