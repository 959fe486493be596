package dev.portcullis.state;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The state a fleet shares, as small named entries in a tree ({@code /sessions/alice}), each with a
 * version that every write increments. Narrow on purpose: what ZooKeeper, etcd or one process's
 * memory can all give with the same meaning.
 *
 * <ul>
 *   <li>Versioned compare-and-set: {@link #create} succeeds for one writer only, {@link #replace}
 *       and {@link #delete} only at the version the caller read. Every fleet-wide rule ("a
 *       credential is used once", "a flow is granted once per epoch") is one of these.
 *   <li>Leases: a {@link Lifetime#LEASED} entry lives as long as this store's session (its server);
 *       when the server dies or is cut off long enough, the entry goes, and every watcher hears so.
 *   <li>Watches: {@link #watch} delivers what is below a path now, then every change, in order.
 * </ul>
 *
 * <p>Paths are absolute inside the store's namespace: {@code /} then segments of letters, digits
 * and {@code - _ . :}, never {@code .} or {@code ..}. Values are bytes; secrets are wrapped before
 * they are stored (docs/fleet.md). Implementations are thread-safe; a watch's listener hears its
 * events in order, one at a time, on a thread of the store's.
 */
public interface StateStore extends AutoCloseable {

  /** How long an entry lives. */
  enum Lifetime {
    /** Until deleted. */
    DURABLE,
    /** Until deleted or this store's session ends (the server stopped, died or was cut off). */
    LEASED
  }

  /** Where the store stands with its backing service. */
  enum Connection {
    /** Reads and writes work. */
    CONNECTED,
    /**
     * Cut off for now; leased entries still exist while the session can be resumed. Decisions that
     * depend on fleet state should fail closed.
     */
    SUSPENDED,
    /** The session ended: this server's leased entries are gone fleet-wide. */
    LOST,
    /** Back, with a new session if the old one was lost (leased entries must be created again). */
    RECONNECTED;

    /**
     * True if reads and writes work: {@link #CONNECTED}, or {@link #RECONNECTED} (which a store
     * stays in until its next loss). Every "is the store there" check asks this, never for one
     * constant: a readiness check that knew only CONNECTED stayed not ready for good after the
     * first reconnect.
     */
    public boolean up() {
      return this == CONNECTED || this == RECONNECTED;
    }
  }

  /** The entry at {@code path}, or empty. */
  Optional<Versioned> read(String path) throws StoreException;

  /**
   * The entry at {@code path} as of now for every member: the store first catches up with the
   * fleet's latest writes (ZooKeeper's {@code sync}). Costs a round trip to the store's leader.
   */
  Optional<Versioned> readLatest(String path) throws StoreException;

  /**
   * How long a member answers {@link LeasedReads} without the store: the longest a writer whose
   * readers do not answer waits in {@link #revokeLeases} (docs/fleet.md).
   */
  Duration READ_LEASE = Duration.ofSeconds(2);

  /**
   * Reads of the entries below {@code root} that are as {@link #readLatest} (every write that
   * {@link #revokeLeases} has returned for is seen) but served from this member's memory while it
   * holds a read lease of {@code lease}. The default: each read is a {@link #readLatest}.
   */
  default LeasedReads leasedReads(String root, Duration lease) throws StoreException {
    return new LeasedReads() {
      @Override
      public Optional<Versioned> read(String path) throws StoreException {
        return readLatest(path);
      }

      @Override
      public void close() {}
    };
  }

  /**
   * After this member wrote {@code path}, below {@code root}: returns once no member's {@link
   * LeasedReads} of {@code root} (with leases of {@code lease}) can answer with what {@code path}
   * held before, each having seen the write or its lease having ended. Call it before telling
   * anyone of the write. The default: nothing to wait for.
   */
  default void revokeLeases(String root, String path, Duration lease) throws StoreException {}

  /** Linearizable reads served under a lease ({@link #leasedReads}). */
  interface LeasedReads extends AutoCloseable {
    /** The entry at {@code path}, as {@link #readLatest} would answer it. */
    Optional<Versioned> read(String path) throws StoreException;

    @Override
    void close();
  }

  /** Creates the entry (and missing parents); false if it exists already. */
  boolean create(String path, byte[] data, Lifetime lifetime) throws StoreException;

  /** Overwrites the entry if it is still at {@code version}; false if not (or if it is absent). */
  boolean replace(String path, byte[] data, int version) throws StoreException;

  /**
   * Deletes the entry if it is at {@code version} ({@link Versioned#ANY}: whatever it is at); false
   * if it is absent or at another version. Its children must be gone.
   */
  boolean delete(String path, int version) throws StoreException;

  /** The names directly below {@code path} (empty if none or absent), sorted. */
  List<String> children(String path) throws StoreException;

  /**
   * Delivers every entry below {@code path} (not {@code path} itself) as {@link
   * StoreEvent.Kind#PUT}, then {@link StoreEvent.Kind#READY}, then each change as it happens.
   */
  Subscription watch(String path, StoreListener listener) throws StoreException;

  /** Called on every change of {@link Connection}. */
  void onConnectionChange(java.util.function.Consumer<Connection> listener);

  /** The store's current connection. */
  Connection connection();

  /**
   * Whether a leased entry's owner is a session known to be alive (docs/security.md, principle 8: a
   * decision never rests on state whose owner is gone). Durable entries and this store's own
   * session are; another member's session is once it has shown itself alive since this store's own
   * session was last renewed. An entry whose owner is not live is to be treated as absent: decided
   * from by nobody, written into by nobody.
   */
  default boolean live(long owner) {
    return true;
  }

  /**
   * Creates or overwrites the leased entry at {@code path} so that it is held by a live session:
   * overwritten in place when it exists and its owner is {@link #live} (the lease stays with that
   * owner, and watchers see one change), otherwise (absent, or held by a session that is gone or
   * being replaced) created under this store's own session. False if it changed meanwhile.
   */
  default boolean putLeased(String path, byte[] data) throws StoreException {
    Optional<Versioned> now = read(path);
    if (now.isEmpty()) {
      return create(path, data, Lifetime.LEASED);
    }
    if (live(now.get().owner())) {
      return replace(path, data, now.get().version());
    }
    return delete(path, now.get().version()) && create(path, data, Lifetime.LEASED);
  }

  /** One line for logs: the kind, where, the namespace. Never a secret. */
  String describe();

  @Override
  void close();

  /** Stops a {@link #watch}. */
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }
}
