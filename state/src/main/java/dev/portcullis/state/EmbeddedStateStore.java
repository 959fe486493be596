package dev.portcullis.state;

import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.OwnedFile;
import dev.portcullis.support.Threads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store of a one-host deployment: the tree in this process's memory, its durable entries also
 * in one owner-only file replaced all or nothing at each write ({@link DurableFiles}), so a crash
 * at any moment leaves the state before or after the write, never between. Leased entries live as
 * long as this object, so they end with the process, as a ZooKeeper session's would. Nothing else
 * to start. Without a file it keeps everything in memory (tests, a PDP with nothing to share).
 *
 * <p>Each durable write rewrites the whole file: meant for the small, rarely written state of one
 * server (sessions, credentials, policy versions), not for per-packet records.
 */
public final class EmbeddedStateStore implements StateStore {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedStateStore.class);
  private final Path file;
  private final OwnedFile owned;
  private final TreeMap<String, Entry> tree = new TreeMap<>();
  private final List<Watch> watches = new CopyOnWriteArrayList<>();
  private final ExecutorService events;
  private boolean closed;

  private record Entry(byte[] data, int version, Lifetime lifetime) {}

  private record Watch(String prefix, StoreListener listener) {}

  private EmbeddedStateStore(Path file, OwnedFile owned) {
    this.file = file;
    this.owned = owned;
    this.events = Executors.newSingleThreadExecutor(Threads.daemon("state-store-events"));
  }

  /** A store in memory only. */
  public static EmbeddedStateStore inMemory() {
    return new EmbeddedStateStore(null, null);
  }

  /**
   * A store kept in {@code file} (created owner-only if missing; its directory must exist), owned
   * by this process alone.
   *
   * @throws StoreException if the file is owned by another process, unreadable or damaged (with the
   *     byte offset where it stopped making sense)
   */
  public static EmbeddedStateStore open(Path file) throws StoreException {
    OwnedFile owned;
    boolean existed = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
    try {
      owned = OwnedFile.claim(file, "state store");
    } catch (IOException e) {
      throw new StoreException(e.getMessage(), e);
    }
    EmbeddedStateStore s = new EmbeddedStateStore(file, owned);
    try {
      long size = Files.size(file);
      if (size > StoreFile.MAX_FILE) {
        throw new IOException(
            size
                + " bytes, more than an embedded store holds ("
                + StoreFile.MAX_FILE
                + "): not a store");
      }
      byte[] b = Files.readAllBytes(file);
      if (b.length > 0) {
        StoreFile.decode(b)
            .forEach((p, v) -> s.tree.put(p, new Entry(v.data(), v.version(), Lifetime.DURABLE)));
      } else if (existed) {
        // Never written by us (a store we wrote has at least its header), or emptied since.
        log.warn(
            "state store {} is empty (0 bytes): starting with no entries; if it held state, that"
                + " state is gone",
            file);
      } else {
        log.info("state store {} created", file);
      }
    } catch (IOException e) {
      closeQuietly(owned);
      throw new StoreException("state store " + file + ": " + e.getMessage(), e);
    }
    return s;
  }

  private void persist() throws StoreException {
    if (file == null) {
      return;
    }
    Map<String, Versioned> durable = new LinkedHashMap<>();
    for (Map.Entry<String, Entry> e : tree.entrySet()) {
      if (e.getValue().lifetime() == Lifetime.DURABLE) {
        durable.put(e.getKey(), new Versioned(e.getValue().data(), e.getValue().version()));
      }
    }
    try {
      DurableFiles.write(file, StoreFile.encode(durable));
    } catch (IOException e) {
      throw new StoreException("state store " + file + ": write failed: " + e.getMessage(), e);
    }
  }

  private void open() throws StoreException {
    if (closed) {
      throw new StoreException("state store closed");
    }
  }

  @Override
  public synchronized Optional<Versioned> read(String path) throws StoreException {
    open();
    Entry e = tree.get(StorePaths.check(path));
    return e == null ? Optional.empty() : Optional.of(new Versioned(e.data(), e.version()));
  }

  @Override
  public Optional<Versioned> readLatest(String path) throws StoreException {
    return read(path); // one process: every read is the latest
  }

  @Override
  public synchronized boolean create(String path, byte[] data, Lifetime lifetime)
      throws StoreException {
    open();
    if (tree.containsKey(StorePaths.check(path))) {
      return false;
    }
    for (String p = path; !p.equals("/"); ) { // missing parents, durable and empty
      p = StorePaths.parent(p);
      if (!p.equals("/") && !tree.containsKey(p)) {
        tree.put(p, new Entry(new byte[0], 0, Lifetime.DURABLE));
      }
    }
    return write(path, data.clone(), 0, lifetime);
  }

  @Override
  public synchronized boolean replace(String path, byte[] data, int version) throws StoreException {
    open();
    Entry e = tree.get(StorePaths.check(path));
    if (e == null || e.version() != version) {
      return false;
    }
    return write(path, data.clone(), version + 1, e.lifetime());
  }

  private boolean write(String path, byte[] data, int version, Lifetime lifetime)
      throws StoreException {
    Entry before = tree.put(path, new Entry(data, version, lifetime));
    if (lifetime == Lifetime.DURABLE) {
      try {
        persist();
      } catch (StoreException x) {
        if (before == null) { // not written: as it was
          tree.remove(path);
        } else {
          tree.put(path, before);
        }
        throw x;
      }
    }
    publish(new StoreEvent(StoreEvent.Kind.PUT, path, new Versioned(data, version)));
    return true;
  }

  @Override
  public synchronized boolean delete(String path, int version) throws StoreException {
    open();
    Entry e = tree.get(StorePaths.check(path));
    if (e == null || (version != Versioned.ANY && e.version() != version)) {
      return false;
    }
    String below = path.equals("/") ? "/" : path + "/";
    String next = tree.ceilingKey(below);
    if (next != null && next.startsWith(below)) {
      throw new StoreException("store path " + path + ": has children, delete them first");
    }
    tree.remove(path);
    if (e.lifetime() == Lifetime.DURABLE) {
      try {
        persist();
      } catch (StoreException x) {
        tree.put(path, e);
        throw x;
      }
    }
    publish(new StoreEvent(StoreEvent.Kind.REMOVED, path, null));
    return true;
  }

  @Override
  public synchronized List<String> children(String path) throws StoreException {
    open();
    String below = StorePaths.check(path).equals("/") ? "/" : path + "/";
    List<String> out = new ArrayList<>();
    for (String p : tree.tailMap(below, true).keySet()) {
      if (!p.startsWith(below)) {
        break;
      }
      String rest = p.substring(below.length());
      if (!rest.isEmpty() && rest.indexOf('/') < 0) {
        out.add(rest);
      }
    }
    return out;
  }

  @Override
  public synchronized Subscription watch(String path, StoreListener listener)
      throws StoreException {
    open();
    String below = StorePaths.check(path).equals("/") ? "/" : path + "/";
    Watch w = new Watch(below, listener);
    List<StoreEvent> now = new ArrayList<>();
    for (Map.Entry<String, Entry> e : tree.tailMap(below, true).entrySet()) {
      if (!e.getKey().startsWith(below)) {
        break;
      }
      now.add(
          new StoreEvent(
              StoreEvent.Kind.PUT,
              e.getKey(),
              new Versioned(e.getValue().data(), e.getValue().version())));
    }
    now.add(new StoreEvent(StoreEvent.Kind.READY, null, null));
    events.execute(() -> now.forEach(listener::changed)); // before any later change: one thread
    watches.add(w);
    return () -> watches.remove(w);
  }

  private void publish(StoreEvent e) {
    for (Watch w : watches) {
      if (e.path().startsWith(w.prefix())) {
        events.execute(() -> w.listener().changed(e));
      }
    }
  }

  @Override
  public void onConnectionChange(Consumer<Connection> listener) {
    // always connected: nothing to report
  }

  @Override
  public Connection connection() {
    return Connection.CONNECTED;
  }

  @Override
  public String describe() {
    return file == null ? "embedded state store (memory only)" : "embedded state store " + file;
  }

  /** Ends the leases (leased entries are removed, and watchers hear so), stops. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      List<String> leased = new ArrayList<>();
      tree.forEach(
          (p, e) -> {
            if (e.lifetime() == Lifetime.LEASED) {
              leased.add(p);
            }
          });
      for (String p : leased) {
        tree.remove(p);
        publish(new StoreEvent(StoreEvent.Kind.REMOVED, p, null));
      }
      closed = true;
    }
    events.shutdown();
    try {
      events.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (owned != null) {
      closeQuietly(owned);
    }
  }

  private static void closeQuietly(OwnedFile f) {
    try {
      f.close();
    } catch (IOException e) {
      // the lock goes with the process anyway; nothing was written here
    }
  }
}
