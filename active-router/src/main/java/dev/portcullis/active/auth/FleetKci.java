package dev.portcullis.active.auth;

import dev.portcullis.crypto.Algorithm;
import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.Digester;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.Versioned;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * What Authorization Server replicas share through the fleet's store (docs/fleet.md):
 *
 * <ul>
 *   <li>each code's current secret, {@code /active/kci/CODE}: the epoch and Kci, wrapped with the
 *       key-encryption key every replica reads from its {@code kek-file} (AES-256-GCM through the
 *       crypto registry, a fresh 96-bit IV per wrap, the code and epoch as additional data, so a
 *       wrapped secret moved to another code or epoch does not unwrap). The store never holds Kci
 *       in clear. Replacing it is a compare-and-set: of two replicas rotating at once, one wins and
 *       the other adopts its secret;
 *   <li>the flows granted in an epoch, {@code /active/granted/CODE/EPOCH/FLOW}: created by exactly
 *       one replica, so a flow is granted at most once per epoch across all of them. Two grants of
 *       one flow in one epoch would give the same session key to two senders, and AES-GCM nonces
 *       would repeat: this is a nonce-safety property.
 * </ul>
 */
public final class FleetKci implements AutoCloseable {
  static final String KCI = "/active/kci";
  static final String GRANTED = "/active/granted";

  /** A code's shared secret: its epoch and Kci (the caller wipes it), and the entry's version. */
  record Shared(int epoch, byte[] kci, int version) {}

  private final StateStore store;
  private final CipherKey kek;
  private final Digester sha256;
  private final SecureRandom random = new SecureRandom();
  private StateStore.Subscription watch;

  /** Owns {@code store} from here on (closes it); {@code kek} is wiped. */
  public FleetKci(StateStore store, CryptoRegistry registry, byte[] kek) {
    this.store = store;
    this.sha256 = registry.digester(Algorithm.SHA_256);
    this.kek = registry.cipherKey(Algorithm.AES_GCM, kek);
    Arrays.fill(kek, (byte) 0);
  }

  /** Calls {@code changed} with the code's id whenever another replica replaces its secret. */
  void watch(IntConsumer changed) throws StoreException {
    watch =
        store.watch(
            KCI,
            e -> {
              if (e.kind() == StoreEvent.Kind.PUT) {
                try {
                  changed.accept(Integer.parseUnsignedInt(e.path().substring(KCI.length() + 1)));
                } catch (NumberFormatException x) {
                  // not a code's entry
                }
              }
            });
  }

  private static byte[] aad(int code, int epoch) {
    return ("portcullis-kci/"
            + Integer.toUnsignedString(code)
            + "/"
            + Integer.toUnsignedString(epoch))
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** The code's shared secret, or empty; a secret that does not unwrap is an error. */
  Optional<Shared> current(int code) throws StoreException {
    Optional<Versioned> v = store.readLatest(KCI + "/" + Integer.toUnsignedString(code));
    if (v.isEmpty()) {
      return Optional.empty();
    }
    ByteBuffer b = ByteBuffer.wrap(v.get().data());
    if (b.remaining() < 4 + 12 + 16) {
      throw new StoreException(KCI + "/" + code + ": too short to be a wrapped secret");
    }
    int epoch = b.getInt();
    byte[] iv = new byte[12];
    b.get(iv);
    byte[] wrapped = new byte[b.remaining()];
    b.get(wrapped);
    try {
      return Optional.of(
          new Shared(epoch, kek.decrypt(iv, aad(code, epoch), wrapped), v.get().version()));
    } catch (GeneralSecurityException e) {
      throw new StoreException(
          KCI
              + "/"
              + code
              + ": the secret does not unwrap with this server's kek-file"
              + " (another key, or tampered with)");
    }
  }

  /**
   * Shares {@code kci} as the code's secret for {@code epoch} if the entry is still at {@code
   * version} (-1: absent); false if another replica replaced it first.
   */
  boolean publish(int code, int epoch, byte[] kci, int version) throws StoreException {
    byte[] iv = new byte[12];
    random.nextBytes(iv);
    byte[] wrapped;
    try {
      wrapped = kek.encrypt(iv, aad(code, epoch), kci);
    } catch (GeneralSecurityException e) {
      throw new StoreException("cannot wrap the secret of code " + code + ": " + e.getMessage());
    }
    byte[] value =
        ByteBuffer.allocate(4 + 12 + wrapped.length).putInt(epoch).put(iv).put(wrapped).array();
    String path = KCI + "/" + Integer.toUnsignedString(code);
    return version < 0
        ? store.create(path, value, Lifetime.DURABLE)
        : store.replace(path, value, version);
  }

  /** True if this replica is the first to grant {@code flow} in {@code epoch} of the code. */
  boolean grantOnce(int code, int epoch, String flow) throws StoreException {
    byte[] h = sha256.digest(flow.getBytes(StandardCharsets.UTF_8));
    return store.create(
        GRANTED
            + "/"
            + Integer.toUnsignedString(code)
            + "/"
            + Integer.toUnsignedString(epoch)
            + "/"
            + HexFormat.of().formatHex(h),
        new byte[0],
        Lifetime.DURABLE);
  }

  /** Forgets the granted flows of the code's epochs before {@code oldestKept}. */
  void forgetBefore(int code, int oldestKept) throws StoreException {
    String root = GRANTED + "/" + Integer.toUnsignedString(code);
    for (String epoch : store.children(root)) {
      long n;
      try {
        n = Long.parseLong(epoch);
      } catch (NumberFormatException e) {
        continue;
      }
      if (n < Integer.toUnsignedLong(oldestKept)) {
        for (String flow : store.children(root + "/" + epoch)) {
          store.delete(root + "/" + epoch + "/" + flow, Versioned.ANY);
        }
        store.delete(root + "/" + epoch, Versioned.ANY);
      }
    }
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
    kek.destroy();
    store.close();
  }
}
