package dev.portcullis.state;

import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.OwnedFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.CRC32;
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
  private static final int MAGIC = 0x50435354; // "PCST"
  private static final int HEADER = 8; // magic, entry count
  private static final int CHECKSUM = 8;
  private static final int MIN_ENTRY = 2 + 4 + 4; // an empty path, version, an empty data length

  /**
   * The largest store file read: the embedded store is for one server's small state (sessions,
   * credentials, policy versions); a larger file is not one of ours, and is refused before it is
   * read into memory.
   */
  static final long MAX_FILE = 256L << 20;

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
    this.events =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "state-store-events");
              t.setDaemon(true);
              return t;
            });
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
      if (size > MAX_FILE) {
        throw new IOException(
            size + " bytes, more than an embedded store holds (" + MAX_FILE + "): not a store");
      }
      byte[] b = Files.readAllBytes(file);
      if (b.length > 0) {
        s.load(b);
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

  /**
   * Reads the file's entries: its checksum is checked first, then every count and length against
   * the bytes that remain, so a damaged file is refused with the byte offset and the field, never
   * read into an array its lengths ask for. Layout: magic "PCST" (4 bytes), entry count (4), per
   * entry the path (2-byte length, modified UTF-8), version (4), data length (4) and data, then the
   * CRC-32 of everything before it (8).
   */
  private void load(byte[] b) throws IOException {
    if (b.length < HEADER + CHECKSUM) {
      throw new IOException(
          "damaged: "
              + b.length
              + " bytes, shorter than an empty store ("
              + (HEADER + CHECKSUM)
              + "): cut short");
    }
    ByteBuffer in = ByteBuffer.wrap(b);
    if (in.getInt(0) != MAGIC) {
      throw new IOException("not a Portcullis state store (byte 0: no PCST magic)");
    }
    int end = b.length - CHECKSUM; // where the entries end and the checksum begins
    CRC32 crc = new CRC32();
    crc.update(b, 0, end);
    if (in.getLong(end) != crc.getValue()) {
      throw new IOException(
          "damaged: the checksum (bytes "
              + end
              + " to "
              + (b.length - 1)
              + ") does not match the "
              + end
              + " bytes before it: the file was cut short or changed");
    }
    in.position(4).limit(end);
    int n = in.getInt();
    if (n < 0 || n > in.remaining() / MIN_ENTRY) {
      throw new IOException(
          "damaged at byte 4: entry count " + n + " does not fit in " + in.remaining() + " bytes");
    }
    for (int i = 0; i < n; i++) {
      int at = in.position();
      String path;
      try {
        path = StorePaths.check(utf(in, at, i));
      } catch (IllegalArgumentException e) {
        throw new IOException("damaged at byte " + at + " (entry " + i + "): " + e.getMessage());
      }
      int version = int32(in, "version", i);
      int length = int32(in, "data length", i);
      if (length < 0 || length > in.remaining()) {
        throw new IOException(
            "damaged at byte "
                + (in.position() - 4)
                + " (entry "
                + i
                + "): data length "
                + length
                + ", "
                + in.remaining()
                + " bytes remain");
      }
      byte[] data = new byte[length];
      in.get(data);
      tree.put(path, new Entry(data, version, Lifetime.DURABLE));
    }
    if (in.hasRemaining()) {
      throw new IOException(
          "damaged at byte "
              + in.position()
              + ": "
              + in.remaining()
              + " bytes after the last of "
              + n
              + " entries");
    }
  }

  private static int int32(ByteBuffer in, String field, int entry) throws IOException {
    if (in.remaining() < 4) {
      throw new IOException(
          "damaged at byte " + in.position() + " (entry " + entry + "): ends inside its " + field);
    }
    return in.getInt();
  }

  /** A path as DataOutput.writeUTF wrote it (2-byte length, modified UTF-8), checked in bounds. */
  private static String utf(ByteBuffer in, int at, int entry) throws IOException {
    if (in.remaining() < 2) {
      throw new IOException("damaged at byte " + at + " (entry " + entry + "): ends in its path");
    }
    int length = Short.toUnsignedInt(in.getShort(at));
    if (length > in.remaining() - 2) {
      throw new IOException(
          "damaged at byte "
              + at
              + " (entry "
              + entry
              + "): path length "
              + length
              + ", "
              + (in.remaining() - 2)
              + " bytes remain");
    }
    try {
      String s =
          new DataInputStream(new ByteArrayInputStream(in.array(), at, 2 + length)).readUTF();
      in.position(at + 2 + length);
      return s;
    } catch (UTFDataFormatException e) {
      throw new IOException(
          "damaged at byte " + (at + 2) + " (entry " + entry + "): path is not modified UTF-8");
    }
  }

  private void persist() throws StoreException {
    if (file == null) {
      return;
    }
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      List<Map.Entry<String, Entry>> durable = new ArrayList<>();
      for (Map.Entry<String, Entry> e : tree.entrySet()) {
        if (e.getValue().lifetime() == Lifetime.DURABLE) {
          durable.add(e);
        }
      }
      out.writeInt(MAGIC);
      out.writeInt(durable.size());
      for (Map.Entry<String, Entry> e : durable) {
        out.writeUTF(e.getKey());
        out.writeInt(e.getValue().version());
        out.writeInt(e.getValue().data().length);
        out.write(e.getValue().data());
      }
      CRC32 crc = new CRC32();
      crc.update(bytes.toByteArray());
      out.writeLong(crc.getValue());
      DurableFiles.write(file, bytes.toByteArray());
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
