package dev.portcullis.active;

import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.verify.CodeSource;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Shared test set-up: the sample crypto configuration, a clock to move, code secrets in a map. */
public final class Fixtures {
  private static CryptoRegistry registry;

  private Fixtures() {}

  /** The registry from config/crypto-providers.xml, opened once per JVM. */
  public static synchronized CryptoRegistry registry() {
    if (registry == null) {
      try {
        registry = CryptoRegistry.open(Path.of("..", "config", "crypto-providers.xml"));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    return registry;
  }

  /** Code secrets held in a map, as a Code Server would hand them out; counts its answers. */
  public static final class SecretMap implements CodeSource {
    public final Map<Long, byte[]> secrets = new ConcurrentHashMap<>();
    public volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    public final AtomicInteger asked = new AtomicInteger();

    public SecretMap put(int code, int epoch, byte[] kci) {
      secrets.put(((long) code << 32) | epoch, kci.clone());
      return this;
    }

    public byte[] get(int code, int epoch) {
      return secrets.get(((long) code << 32) | epoch);
    }

    @Override
    public CompletableFuture<byte[]> secret(int code, int epoch) {
      asked.incrementAndGet();
      return gate.thenApply(
          x -> {
            byte[] k = get(code, epoch);
            if (k == null) {
              throw new CompletionException(
                  new UnknownCodeException("no code " + code + " epoch " + epoch));
            }
            return k.clone();
          });
    }
  }

  public static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(s, e);
    }
  }

  /** What the Authorization Server would hand the Source: a sealer for the flow. */
  public static PacketSealer sealer(
      Flow flow, int epoch, byte[] kci, MacAlgorithm mac, boolean encrypt) {
    SessionKdf kdf = new SessionKdf(registry());
    MacKey prk = kdf.prepare(kci);
    try {
      return new PacketSealer(
          registry(),
          flow,
          epoch,
          mac,
          kdf.macKey(prk, flow, mac),
          encrypt ? kdf.encryptionKey(prk, flow) : null);
    } finally {
      prk.destroy();
    }
  }
}
