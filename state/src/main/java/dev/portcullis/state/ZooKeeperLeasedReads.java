package dev.portcullis.state;

import dev.portcullis.support.Threads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Linearizable reads of the entries below one root without a ZooKeeper round trip per read, under a
 * read lease that every write of the root revokes (docs/fleet.md, "Linearizable reads under a
 * lease"). What it rests on is ZooKeeper's ordering of one session: the server sends a watch
 * notification before the answer to any request it handles after the change, and the client's event
 * thread runs notifications and callbacks in the order they arrived.
 *
 * <ul>
 *   <li><b>The view.</b> A persistent recursive watch on the root; a notification for an entry
 *       drops it from the view (on the event thread, before anything that arrived after it), and an
 *       asynchronous read of the entry, sent after the notification, puts what it finds back unless
 *       another notification came meanwhile. A read the view cannot answer is a {@code sync} and a
 *       read, as {@link StateStore#readLatest}, and fills the view the same way.
 *   <li><b>The lease.</b> A {@code sync} every third of the lease, which goes through the leader:
 *       its answer comes after the notifications of every change committed before the leader
 *       handled it, so the lease it extends (to the moment the sync was sent, plus the lease) never
 *       covers a change the view has not dropped. The view answers only within the lease.
 *   <li><b>The revocation.</b> This member says which changes it has seen: a leased entry {@code
 *       /_readers/ROOT/SESSION} holding the zxid of the last notification it handled, written after
 *       the view dropped what it names. A writer ({@link #revoke}) waits until every registered
 *       reader's entry is at its change's zxid or later, or, for a reader that does not answer
 *       (stopped, cut off, paused), until that reader's lease must have ended: the writer's own
 *       lease time plus a tenth for clocks that run at different rates.
 * </ul>
 *
 * A reader registers before it watches and before it answers anything: a writer that does not see
 * its entry committed its change before the reader read anything. While the store is cut off the
 * lease is not renewed and the view is emptied; reads go to the store and fail there (fail closed).
 */
final class ZooKeeperLeasedReads implements StateStore.LeasedReads {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperLeasedReads.class);
  static final String READERS = "/_readers";

  /** An entry as the view holds it, present or known absent, and the epoch it was read in. */
  private record Held(Optional<Versioned> value, long epoch) {}

  /** The lease: valid until {@code until} (nanoTime) in {@code epoch} only. */
  private record Lease(long epoch, long until) {}

  /** Entries the view and the change counts hold at most: beyond, reads go to the store. */
  static final int MOST = 65_536;

  private final ZooKeeperStateStore store;
  private final String root; // in the store's namespace
  private final String fullRoot; // in ZooKeeper's
  private final long leaseNanos;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService beat;
  private final Map<String, Held> view = new ConcurrentHashMap<>();
  private final Watcher watcher = this::notified; // one instance: removed as it was added

  /** Per entry, how many notifications it has had: a read answered after one is not filed. */
  private final Map<String, Long> changes = new ConcurrentHashMap<>();

  /**
   * Bumped when the view is emptied (cut off, a new session): a lease or an entry of an older epoch
   * answers nothing, whenever it was set.
   */
  private final AtomicLong epoch = new AtomicLong();

  private volatile Lease lease = new Lease(-1, 0);
  private volatile long seen; // zxid of the last notification handled
  private volatile long said = -1; // the zxid last written to this reader's entry
  private volatile ZooKeeper watching; // the handle the watch is on
  private volatile String entry; // this reader's entry, in ZooKeeper's namespace
  private volatile boolean closed;
  private final java.util.concurrent.atomic.LongAdder storeReads =
      new java.util.concurrent.atomic.LongAdder();

  /** How many reads went to the store (the view could not answer them). */
  long storeReads() {
    return storeReads.sum();
  }

  ZooKeeperLeasedReads(
      ZooKeeperStateStore store, String root, Duration lease, LongSupplier nanoTime, String where)
      throws StoreException {
    this.store = store;
    this.root = StorePaths.check(root);
    this.fullRoot = ZKPaths.makePath(store.curator().getNamespace(), root);
    this.leaseNanos = lease.toNanos();
    this.nanoTime = nanoTime;
    this.beat = Threads.owner("zookeeper-store-lease");
    store.onConnectionChange(
        c -> {
          if (!c.up()) {
            dropAll("store " + c);
          } else {
            if (!closed) {
              beat.execute(this::attachQuietly); // a new session has no watch and no entry yet
            }
          }
        });
    try {
      beat.submit(this::attach).get(); // the lease's owner: attach and renew run there alone
    } catch (java.util.concurrent.ExecutionException e) {
      beat.shutdownNow();
      throw e.getCause() instanceof StoreException se
          ? se
          : new StoreException(store.describe() + ": leased reads of " + root + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      beat.shutdownNow();
      throw new StoreException(store.describe() + ": interrupted starting leased reads", e);
    }
    long every = Math.max(1, leaseNanos / 3);
    beat.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.NANOSECONDS);
    log.info("{}: reads of {} under a lease of {} ms", where, root, lease.toMillis());
  }

  /** Where readers of {@code root} register: {@code /_readers/mls.sessions} for /mls/sessions. */
  static String readers(String root) {
    return READERS + "/" + root.substring(1).replace('/', '.');
  }

  private void attachQuietly() {
    try {
      attach();
    } catch (StoreException e) {
      log.warn("{}: leased reads of {} not resumed: {}", store.describe(), root, e.getMessage());
    }
  }

  /**
   * Registers this reader, then watches: on the current session, once per session. On the lease's
   * owner thread only.
   */
  private Void attach() throws StoreException {
    ZooKeeper zk;
    try {
      zk = store.curator().getZookeeperClient().getZooKeeper();
    } catch (Exception e) {
      throw new StoreException(store.describe() + ": no ZooKeeper handle: " + e.getMessage(), e);
    }
    if (closed || zk == watching) {
      return null;
    }
    dropAll("new session");
    String mine = readers(root) + "/" + Long.toHexString(zk.getSessionId());
    String full = ZKPaths.makePath(store.curator().getNamespace(), mine);
    try {
      store.createParents(readers(root)); // made by whoever comes first, durable
      zk.create(full, zxid(seen), ZooDefs.Ids.CREATOR_ALL_ACL, CreateMode.EPHEMERAL, new Stat());
    } catch (KeeperException.NodeExistsException e) {
      // this session's, from before: written again below
    } catch (Exception e) {
      throw new StoreException(store.describe() + ": register " + mine + ": " + e, e);
    }
    try {
      zk.addWatch(fullRoot, watcher, AddWatchMode.PERSISTENT_RECURSIVE);
    } catch (Exception e) {
      throw new StoreException(store.describe() + ": watch " + root + ": " + e, e);
    }
    entry = full;
    said = -1;
    watching = zk;
    renew();
    return null;
  }

  /** On ZooKeeper's event thread, in the order the server sent it. */
  private void notified(WatchedEvent e) {
    if (e.getType() == Watcher.Event.EventType.None) {
      if (e.getState() != Watcher.Event.KeeperState.SyncConnected) {
        dropAll("ZooKeeper " + e.getState());
      }
      return;
    }
    String path = e.getPath();
    if (path == null || !path.startsWith(fullRoot + "/")) {
      return;
    }
    String key = root + path.substring(fullRoot.length());
    if (changes.size() >= MOST) {
      dropAll("more than " + MOST + " entries changed"); // the counts start again
    }
    changes.merge(key, 1L, Long::sum);
    view.remove(key);
    if (e.getZxid() > seen) {
      seen = e.getZxid();
    }
    fill(key); // read again now: sent after the notification, so it sees the change
    say();
  }

  /** Reads {@code key} asynchronously and files what it finds unless it changed meanwhile. */
  private void fill(String key) {
    ZooKeeper zk = watching;
    if (zk == null) {
      return;
    }
    long before = changes.getOrDefault(key, 0L);
    long era = epoch.get();
    zk.getData(
        ZKPaths.makePath(store.curator().getNamespace(), key),
        false,
        (rc, p, ctx, data, stat) -> {
          Held h;
          if (rc == KeeperException.Code.OK.intValue()) {
            h =
                new Held(
                    Optional.of(
                        new Versioned(
                            data == null ? new byte[0] : data,
                            stat.getVersion(),
                            stat.getEphemeralOwner())),
                    era);
          } else if (rc == KeeperException.Code.NONODE.intValue()) {
            h = new Held(Optional.empty(), era);
          } else {
            return; // connection loss: nothing known
          }
          if (changes.getOrDefault(key, 0L) == before && view.size() < MOST) {
            view.put(key, h); // an older epoch's entry answers nothing (read)
          }
        },
        null);
  }

  /** Writes the zxid of the last notification handled to this reader's entry, if it moved. */
  private void say() {
    ZooKeeper zk = watching;
    String mine = entry;
    long s = seen;
    if (zk == null || mine == null || s <= said) {
      return;
    }
    said = s;
    zk.setData(mine, zxid(s), -1, (rc, p, ctx, stat) -> {}, null);
  }

  /** Extends the lease by a sync through the leader (see the class comment). */
  private void renew() {
    ZooKeeper zk = watching;
    if (zk == null || closed) {
      return;
    }
    long sent = nanoTime.getAsLong();
    long era = epoch.get();
    zk.sync(
        fullRoot,
        (rc, p, ctx) -> {
          if (rc == KeeperException.Code.OK.intValue()) {
            lease = new Lease(era, sent + leaseNanos); // an older epoch's lease answers nothing
          }
        },
        null);
  }

  private void dropAll(String why) {
    log.debug("{}: lease of {} dropped: {}", store.describe(), root, why);
    epoch.incrementAndGet(); // first: whatever is set after it, of an older epoch, is void
    view.clear();
    changes.clear();
  }

  @Override
  public Optional<Versioned> read(String path) throws StoreException {
    long era = epoch.get();
    Lease l = lease; // read before the view: a lease set after a drop publishes the drop
    if (l.epoch() == era && nanoTime.getAsLong() - l.until() < 0) {
      Held h = view.get(path);
      if (h != null && h.epoch() == era) {
        return h.value();
      }
    }
    storeReads.increment();
    Optional<Versioned> v = store.readLatest(path);
    fill(path);
    return v;
  }

  @Override
  public void close() {
    closed = true;
    beat.shutdownNow();
    dropAll("closed");
    ZooKeeper zk = watching;
    watching = null;
    if (zk != null) {
      try {
        zk.removeWatches(fullRoot, watcher, Watcher.WatcherType.Any, true);
        if (entry != null) {
          zk.delete(entry, -1);
        }
      } catch (Exception e) {
        log.debug("{}: leased reads of {} closed: {}", store.describe(), root, e.toString());
      }
    }
  }

  /**
   * The writer's side: finds the zxid of the last change of {@code path} (its data, or its creation
   * or deletion, seen as its parent's last child change) after a {@code sync}, then waits until
   * every reader of {@code root} registered then has said it saw that change, or, for one that does
   * not say so, until its lease must have ended ({@code lease} and a tenth). The wait is a watch on
   * each reader's entry, never a poll.
   */
  static void revoke(ZooKeeperStateStore store, String root, String path, Duration lease)
      throws StoreException {
    StorePaths.check(path);
    long deadline = System.nanoTime() + lease.toNanos() + lease.toNanos() / 10;
    String ns = store.curator().getNamespace();
    String readers = ZKPaths.makePath(ns, readers(root));
    try {
      ZooKeeper zk = store.curator().getZookeeperClient().getZooKeeper();
      String full = ZKPaths.makePath(ns, path);
      zk.sync(full); // what follows sees every reader registered, and every write, before it
      List<String> pending;
      try {
        pending = new ArrayList<>(zk.getChildren(readers, false));
      } catch (KeeperException.NoNodeException e) {
        return; // nobody reads under a lease
      }
      if (pending.isEmpty()) {
        return;
      }
      Stat parent = zk.exists(ZKPaths.getPathAndNode(full).getPath(), false);
      Stat own = zk.exists(full, false);
      long change =
          Math.max(parent == null ? 0 : parent.getPzxid(), own == null ? 0 : own.getMzxid());
      java.util.concurrent.BlockingQueue<Object> moved =
          new java.util.concurrent.LinkedBlockingQueue<>();
      while (!pending.isEmpty()) {
        for (java.util.Iterator<String> i = pending.iterator(); i.hasNext(); ) {
          String r = readers + "/" + i.next();
          try {
            byte[] said = zk.getData(r, ev -> moved.offer(ev), null);
            if (zxid(said) >= change) {
              i.remove();
            }
          } catch (KeeperException.NoNodeException e) {
            i.remove(); // that reader is gone: its session ended, and its lease with it
          }
        }
        long left = deadline - System.nanoTime();
        if (pending.isEmpty() || left <= 0) {
          break;
        }
        moved.poll(left, TimeUnit.NANOSECONDS); // a reader's entry moved, or time is up
      }
      if (!pending.isEmpty()) {
        log.warn(
            "{}: readers {} of {} did not confirm change {} of {}: waited for their leases to end",
            store.describe(),
            pending,
            root,
            Long.toHexString(change),
            path);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException(
          store.describe() + ": interrupted revoking the leases on " + path, e);
    } catch (Exception e) {
      throw store.failure("revoke leases on", path, e);
    }
  }

  static byte[] zxid(long z) {
    return Long.toHexString(z).getBytes(StandardCharsets.US_ASCII);
  }

  static long zxid(byte[] b) {
    try {
      return b == null || b.length == 0
          ? 0
          : Long.parseUnsignedLong(new String(b, StandardCharsets.US_ASCII), 16);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
