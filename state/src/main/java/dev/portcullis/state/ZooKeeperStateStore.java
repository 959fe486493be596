package dev.portcullis.state;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's store on an Apache ZooKeeper ensemble, through Apache Curator: consensus, versioned
 * compare-and-set ({@code setData} and {@code delete} with a version), leases (ephemeral nodes of
 * this client's session), watches ({@link CuratorCache}). All of this store's nodes sit under its
 * namespace ({@code /portcullis/NAME}) and carry the ACL {@code creator:all} of the digest identity
 * read from the auth file: members sharing that identity read and write, nobody else does
 * (docs/fleet.md, "Securing the store").
 *
 * <p><b>Live sessions</b> (docs/security.md, principle 8). A leased entry lives with the session
 * that created it, and ZooKeeper keeps a session whose client has given it up (it heard its session
 * was lost and made a new one) until the ensemble's own timer ends it: after a quorum outage longer
 * than the session timeout, every member's old session lives on for one more timeout, holding
 * entries nobody stands behind any more. So each store says it is alive: a leased entry {@code
 * /_live/SESSION} that it touches every third of the session timeout; a store counts another
 * session {@link #live} once it has seen that entry written since its own session was last renewed,
 * and forgets it when the entry goes. When this store's session is lost and a new one made, it
 * deletes the leased entries its old session created, before it tells its listeners it is back: the
 * fleet sees them go at once, not a timeout later.
 */
public final class ZooKeeperStateStore implements StateStore {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperStateStore.class);

  private final CuratorFramework client;
  private final String where;
  private final List<Consumer<Connection>> listeners = new CopyOnWriteArrayList<>();
  private final AtomicReference<Connection> connection =
      new AtomicReference<>(Connection.SUSPENDED);

  /** This store's liveness and the other sessions' (principle 8). */
  private final SessionLiveness liveness;

  /** The leased entries this store created, with the session that holds each. */
  private final Map<String, Long> leases = new ConcurrentHashMap<>();

  /**
   * How to reach the ensemble.
   *
   * @param connect {@code host:port,host:port,...}
   * @param namespace the fleet's root, e.g. {@code /portcullis/lab}
   * @param sessionTimeout how long the ensemble keeps this member's leases after losing it
   * @param digest {@code user:password} for ZooKeeper's digest scheme (never logged)
   */
  public record Settings(String connect, String namespace, Duration sessionTimeout, String digest) {
    @Override
    public String toString() {
      return "zookeeper " + connect + " " + namespace; // never the digest
    }
  }

  private ZooKeeperStateStore(CuratorFramework client, String where) {
    this.client = client;
    this.where = where;
    this.liveness = new SessionLiveness(this, where);
  }

  /**
   * Connects, waiting at most the session timeout for a first connection.
   *
   * @throws StoreException if the ensemble cannot be reached in that time or refuses the identity
   */
  public static ZooKeeperStateStore connect(Settings s) throws StoreException {
    String ns = StorePaths.check(s.namespace()).substring(1);
    if (ns.isEmpty()) {
      throw new IllegalArgumentException("namespace /: a fleet needs its own namespace");
    }
    if (s.digest() == null || s.digest().indexOf(':') < 1) {
      throw new IllegalArgumentException("ZooKeeper identity: expected user:password");
    }
    List<ACL> creatorOnly = ZooDefs.Ids.CREATOR_ALL_ACL;
    ACLProvider acl =
        new ACLProvider() {
          @Override
          public List<ACL> getDefaultAcl() {
            return creatorOnly;
          }

          @Override
          public List<ACL> getAclForPath(String path) {
            return creatorOnly;
          }
        };
    int sessionMs = (int) Math.min(Integer.MAX_VALUE, s.sessionTimeout().toMillis());
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(s.connect())
            .namespace(ns)
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(Math.min(sessionMs, 5_000))
            .retryPolicy(new ExponentialBackoffRetry(100, 3, 1_000))
            .authorization("digest", s.digest().getBytes(StandardCharsets.UTF_8))
            .aclProvider(acl)
            .build();
    ZooKeeperStateStore store = new ZooKeeperStateStore(c, s.toString());
    c.getConnectionStateListenable().addListener((cf, state) -> store.changed(state));
    c.start();
    try {
      if (!c.blockUntilConnected(sessionMs, TimeUnit.MILLISECONDS)) {
        c.close();
        throw new StoreException(
            s + ": no ZooKeeper server reached in " + s.sessionTimeout().toMillis() + " ms");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      c.close();
      throw new StoreException(s + ": interrupted while connecting", e);
    }
    store.connection.set(Connection.CONNECTED);
    try {
      store.liveness.start(store.currentSession(), Math.max(1_000, sessionMs / 3));
    } catch (StoreException e) {
      store.close();
      throw e;
    }
    return store;
  }

  private long currentSession() {
    try {
      return client.getZookeeperClient().getZooKeeper().getSessionId();
    } catch (Exception e) {
      return 0;
    }
  }

  @Override
  public boolean live(long owner) {
    return liveness.live(owner);
  }

  /**
   * The session was lost and a new one made: the leased entries the old one created are deleted
   * (where it still holds them), so that nobody decides from them while the ensemble's timer runs;
   * then this store says it is alive under the new one.
   */
  private void renewed(long old, long now) {
    int n = 0;
    for (Map.Entry<String, Long> l : leases.entrySet()) {
      if (l.getValue() != old) {
        continue;
      }
      String path = l.getKey();
      try {
        Optional<Versioned> v = read(path);
        if (v.isPresent() && v.get().owner() == old && delete(path, v.get().version())) {
          n++;
        }
      } catch (StoreException e) {
        log.warn("{}: entry {} of the lost session not deleted: {}", where, path, e.getMessage());
      }
      leases.remove(path, old);
    }
    log.info(
        "{}: new session {}; {} leased entries of the lost session {} deleted",
        where,
        Long.toHexString(now),
        n,
        Long.toHexString(old));
    liveness.renewed(now);
  }

  private void changed(ConnectionState state) {
    Connection now =
        switch (state) {
          case CONNECTED, READ_ONLY -> Connection.CONNECTED;
          case RECONNECTED -> Connection.RECONNECTED;
          case SUSPENDED -> Connection.SUSPENDED;
          case LOST -> Connection.LOST;
        };
    if (now == Connection.LOST) {
      liveness.lost();
    } else if (now == Connection.CONNECTED || now == Connection.RECONNECTED) {
      long old = liveness.session();
      long renewed = currentSession();
      if (old != 0 && renewed != 0 && renewed != old) {
        renewed(old, renewed); // before anyone hears the store is back
      }
    }
    Connection before = connection.getAndSet(now);
    if (before != now) {
      if (now == Connection.LOST || now == Connection.SUSPENDED) {
        log.warn("{}: {}", where, now == Connection.LOST ? "session lost" : "cut off");
      } else {
        log.info("{}: {}", where, now == Connection.RECONNECTED ? "reconnected" : "connected");
      }
      listeners.forEach(l -> l.accept(now));
    }
  }

  StoreException failure(String op, String path, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    String why =
        e instanceof KeeperException.NoAuthException
            ? "refused by the namespace's ACL (another identity owns it: check the auth file)"
            : e instanceof KeeperException.ConnectionLossException
                    || e instanceof KeeperException.SessionExpiredException
                ? "store unreachable (" + e.getClass().getSimpleName() + ")"
                : e.getClass().getSimpleName() + ": " + e.getMessage();
    return new StoreException(where + ": " + op + " " + path + ": " + why, e);
  }

  @Override
  public Optional<Versioned> read(String path) throws StoreException {
    StorePaths.check(path);
    try {
      Stat stat = new Stat();
      byte[] data = client.getData().storingStatIn(stat).forPath(path);
      return Optional.of(
          new Versioned(
              data == null ? new byte[0] : data, stat.getVersion(), stat.getEphemeralOwner()));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (Exception e) {
      throw failure("read", path, e);
    }
  }

  /**
   * A {@code sync} and then the read, pipelined on the raw ZooKeeper connection: ZooKeeper executes
   * one client's requests in the order they were sent, so the read is answered after the sync has
   * brought this client's server up to the leader, without waiting a round trip for the sync's own
   * answer in between (docs/fleet.md has the figures). Both go through the raw handle on purpose:
   * Curator sends background operations from its own thread, so a Curator {@code sync()} may leave
   * after a read issued after it (an earlier version did that, and a test on another JDK caught a
   * stale read). A sync fails only when the connection does, and then the read after it on the same
   * connection fails too: the read's outcome is the answer.
   */
  @Override
  public Optional<Versioned> readLatest(String path) throws StoreException {
    StorePaths.check(path);
    String full = ZKPaths.makePath(client.getNamespace(), path);
    try {
      ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
      zk.sync(full, (rc, p, ctx) -> {}, null);
      Stat stat = new Stat();
      byte[] data = zk.getData(full, false, stat);
      if (log.isDebugEnabled()) {
        // which write a linearizable read saw (a fleet test once saw a deleted entry here)
        log.debug(
            "{}: read {} after sync: version {}, owner {}, created at zxid {}, changed at {}",
            where,
            path,
            stat.getVersion(),
            Long.toHexString(stat.getEphemeralOwner()),
            Long.toHexString(stat.getCzxid()),
            Long.toHexString(stat.getMzxid()));
      }
      return Optional.of(
          new Versioned(
              data == null ? new byte[0] : data, stat.getVersion(), stat.getEphemeralOwner()));
    } catch (KeeperException.NoNodeException e) {
      log.debug("{}: read {} after sync: none", where, path);
      return Optional.empty();
    } catch (Exception e) {
      throw failure("read", path, e);
    }
  }

  /** Creates {@code path} and its parents, durable, where they are not there yet. */
  void createParents(String path) throws StoreException {
    try {
      client.create().creatingParentsIfNeeded().forPath(path);
    } catch (KeeperException.NodeExistsException e) {
      // there already
    } catch (Exception e) {
      throw failure("create", path, e);
    }
  }

  @Override
  public LeasedReads leasedReads(String root, Duration lease) throws StoreException {
    return new ZooKeeperLeasedReads(this, root, lease, System::nanoTime, where);
  }

  /** See {@link ZooKeeperLeasedReads#revoke}: the writer's side of the lease protocol. */
  @Override
  public void revokeLeases(String root, String path, Duration lease) throws StoreException {
    ZooKeeperLeasedReads.revoke(this, root, path, lease);
  }

  @Override
  public boolean create(String path, byte[] data, Lifetime lifetime) throws StoreException {
    StorePaths.check(path);
    try {
      client
          .create()
          .creatingParentContainersIfNeeded()
          .withMode(lifetime == Lifetime.LEASED ? CreateMode.EPHEMERAL : CreateMode.PERSISTENT)
          .forPath(path, data);
      if (lifetime == Lifetime.LEASED) {
        leases.put(path, liveness.session());
      }
      log.debug("{}: created {} ({})", where, path, lifetime);
      return true;
    } catch (KeeperException.NodeExistsException e) {
      return false;
    } catch (Exception e) {
      throw failure("create", path, e);
    }
  }

  @Override
  public boolean replace(String path, byte[] data, int version) throws StoreException {
    StorePaths.check(path);
    try {
      Stat stat = client.setData().withVersion(version).forPath(path, data);
      log.debug(
          "{}: replaced {} (version {} -> {}, zxid {})",
          where,
          path,
          version,
          stat.getVersion(),
          Long.toHexString(stat.getMzxid()));
      return true;
    } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
      return false;
    } catch (Exception e) {
      throw failure("replace", path, e);
    }
  }

  @Override
  public boolean delete(String path, int version) throws StoreException {
    StorePaths.check(path);
    try {
      client.delete().withVersion(version).forPath(path);
      leases.remove(path);
      log.debug("{}: deleted {} (version {})", where, path, version);
      return true;
    } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
      return false;
    } catch (KeeperException.NotEmptyException e) {
      throw new StoreException(where + ": store path " + path + ": has children", e);
    } catch (Exception e) {
      throw failure("delete", path, e);
    }
  }

  @Override
  public List<String> children(String path) throws StoreException {
    StorePaths.check(path);
    try {
      List<String> out = new ArrayList<>(client.getChildren().forPath(path));
      Collections.sort(out);
      return out;
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (Exception e) {
      throw failure("children", path, e);
    }
  }

  @Override
  public Subscription watch(String path, StoreListener listener) throws StoreException {
    StorePaths.check(path);
    String below = path.equals("/") ? "/" : path + "/";
    CuratorCache cache = CuratorCache.build(client, path);
    CuratorCacheListener l =
        CuratorCacheListener.builder()
            .forCreates(n -> put(below, n, listener))
            .forChanges((before, n) -> put(below, n, listener))
            .forDeletes(
                n -> {
                  if (n.getPath().startsWith(below)) {
                    listener.changed(new StoreEvent(StoreEvent.Kind.REMOVED, n.getPath(), null));
                  }
                })
            .forInitialized(
                () -> listener.changed(new StoreEvent(StoreEvent.Kind.READY, null, null)))
            .build();
    cache.listenable().addListener(l);
    try {
      cache.start();
    } catch (RuntimeException e) {
      throw failure("watch", path, e);
    }
    return cache::close;
  }

  private static void put(String below, ChildData n, StoreListener listener) {
    if (n.getPath().startsWith(below)) {
      byte[] d = n.getData() == null ? new byte[0] : n.getData();
      int v = n.getStat() == null ? 0 : n.getStat().getVersion();
      long owner = n.getStat() == null ? Versioned.DURABLE : n.getStat().getEphemeralOwner();
      listener.changed(
          new StoreEvent(StoreEvent.Kind.PUT, n.getPath(), new Versioned(d, v, owner)));
    }
  }

  @Override
  public void onConnectionChange(Consumer<Connection> listener) {
    listeners.add(listener);
  }

  @Override
  public Connection connection() {
    return connection.get();
  }

  @Override
  public String describe() {
    return where;
  }

  /** The Curator client, for tests that inject faults. */
  CuratorFramework curator() {
    return client;
  }

  /**
   * Ends this member's session as if the ensemble had expired it (ZooKeeper's own test hook): its
   * leased entries end fleet-wide and it hears {@link Connection#LOST}, then reconnects with a new
   * session. For fault drills and tests.
   */
  public void expireSession() {
    try {
      client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    } catch (Exception e) {
      throw new IllegalStateException(where + ": cannot expire the session: " + e.getMessage(), e);
    }
  }

  /** Closes the session: this member's leased entries end at once, fleet-wide. */
  @Override
  public void close() {
    liveness.close();
    client.close();
  }
}
