package dev.portcullis.active.fleet;

import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.Versioned;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * What Authorization Server replicas share through the fleet's store (docs/fleet.md):
 *
 * <ul>
 *   <li>every epoch's secret, {@code /active/epochs/CODE/EPOCH}, so that Code Server replicas serve
 *       the same Kci to routers; created once, so an epoch never has two secrets fleet-wide;
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
  public record Shared(int epoch, byte[] kci, int version) {}

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
  public void watch(IntConsumer changed) throws StoreException {
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

  /** The 16-byte IV and the wrap of {@code kci} for the code's epoch. */
  private byte[] wrap(int code, int epoch, byte[] kci) throws StoreException {
    byte[] iv = new byte[12];
    random.nextBytes(iv);
    try {
      byte[] w = kek.encrypt(iv, aad(code, epoch), kci);
      return ByteBuffer.allocate(4 + 12 + w.length).putInt(epoch).put(iv).put(w).array();
    } catch (GeneralSecurityException e) {
      throw new StoreException("cannot wrap the secret of code " + code + ": " + e.getMessage());
    }
  }

  /** The epoch and Kci of a wrapped value; the path names it in errors. */
  private Shared unwrap(String path, int code, byte[] value, int version) throws StoreException {
    ByteBuffer b = ByteBuffer.wrap(value);
    if (b.remaining() < 4 + 12 + 16) {
      throw new StoreException(path + ": too short to be a wrapped secret");
    }
    int epoch = b.getInt();
    byte[] iv = new byte[12];
    b.get(iv);
    byte[] wrapped = new byte[b.remaining()];
    b.get(wrapped);
    try {
      return new Shared(epoch, kek.decrypt(iv, aad(code, epoch), wrapped), version);
    } catch (GeneralSecurityException e) {
      throw new StoreException(
          path
              + ": the secret does not unwrap with this server's kek-file"
              + " (another key, or tampered with)");
    }
  }

  private static String epochPath(int code, int epoch) {
    return "/active/epochs/"
        + Integer.toUnsignedString(code)
        + "/"
        + Integer.toUnsignedString(epoch);
  }

  /**
   * Keeps the code's secret for {@code epoch} for every Code Server replica: true if stored now or
   * already stored with these very bytes, false if the epoch has another secret.
   */
  public boolean putEpoch(int code, int epoch, byte[] kci) throws StoreException {
    String path = epochPath(code, epoch);
    if (store.create(path, wrap(code, epoch, kci), Lifetime.DURABLE)) {
      return true;
    }
    Optional<byte[]> there = epoch(code, epoch);
    try {
      return there.isPresent() && MessageDigest.isEqual(there.get(), kci);
    } finally {
      there.ifPresent(k -> Arrays.fill(k, (byte) 0));
    }
  }

  /** The code's secret of {@code epoch} (the caller wipes it), or empty. */
  public Optional<byte[]> epoch(int code, int epoch) throws StoreException {
    String path = epochPath(code, epoch);
    Optional<Versioned> v = store.readLatest(path);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    Shared s = unwrap(path, code, v.get().data(), v.get().version());
    if (s.epoch() != epoch) {
      Arrays.fill(s.kci(), (byte) 0);
      throw new StoreException(path + ": holds epoch " + s.epoch());
    }
    return Optional.of(s.kci());
  }

  /** The code's epochs kept in the store, oldest first. */
  public List<Integer> epochs(int code) throws StoreException {
    List<Integer> out = new ArrayList<>();
    for (String e : store.children("/active/epochs/" + Integer.toUnsignedString(code))) {
      try {
        out.add(Integer.parseUnsignedInt(e));
      } catch (NumberFormatException x) {
        // not an epoch
      }
    }
    out.sort(Integer::compareUnsigned);
    return out;
  }

  /** Forgets all but the newest {@code kept} epochs of the code. */
  public void keepNewest(int code, int kept) throws StoreException {
    List<Integer> all = epochs(code);
    for (int i = 0; i < all.size() - kept; i++) {
      store.delete(epochPath(code, all.get(i)), Versioned.ANY);
    }
  }

  private static byte[] aad(int code, int epoch) {
    return ("portcullis-kci/"
            + Integer.toUnsignedString(code)
            + "/"
            + Integer.toUnsignedString(epoch))
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** The code's shared secret, or empty; a secret that does not unwrap is an error. */
  public Optional<Shared> current(int code) throws StoreException {
    String path = KCI + "/" + Integer.toUnsignedString(code);
    Optional<Versioned> v = store.readLatest(path);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(unwrap(path, code, v.get().data(), v.get().version()));
  }

  /**
   * Shares {@code kci} as the code's secret for {@code epoch} if the entry is still at {@code
   * version} (-1: absent); false if another replica replaced it first.
   */
  public boolean publish(int code, int epoch, byte[] kci, int version) throws StoreException {
    byte[] value = wrap(code, epoch, kci);
    String path = KCI + "/" + Integer.toUnsignedString(code);
    return version < 0
        ? store.create(path, value, Lifetime.DURABLE)
        : store.replace(path, value, version);
  }

  /** True if this replica is the first to grant {@code flow} in {@code epoch} of the code. */
  public boolean grantOnce(int code, int epoch, String flow) throws StoreException {
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
  public void forgetBefore(int code, int oldestKept) throws StoreException {
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
