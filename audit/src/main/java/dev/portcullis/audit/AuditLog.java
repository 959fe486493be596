package dev.portcullis.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.crypto.Digester;
import dev.portcullis.support.OwnedFile;
import dev.portcullis.support.Threads;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Audit records as JSON lines, one per decision, report, connection event and policy change. Event
 * loops only enqueue, and one background thread formats, seals and writes in batches; the queue is
 * bounded, and when the writer falls behind, whoever records waits for room rather than a record
 * being dropped (a PDP's decisions slow to the pace its audit log keeps). Records are chained by
 * SHA-256 hashes ({@link AuditChain}) so that an edited, removed or reordered record is found by
 * {@code pdp-server verify-audit FILE}; appending to an existing file continues its chain. The file
 * is owned ({@link OwnedFile}): one writer at a time, owner-only.
 */
public final class AuditLog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int CAPACITY = 65536;

  /** Writes nothing. */
  public static final AuditLog NONE = new AuditLog();

  private final BlockingQueue<Map<String, Object>> queue;
  private final Thread writer;
  private final Path file;
  private final LongAdder dropped = new LongAdder();

  /** Records that found the queue full and waited for the writer (none was dropped for it). */
  private final LongAdder heldUp = new LongAdder();

  private final AuditChain chain;
  private final OwnedFile owned;
  private final List<Path> made; // what opening created, for abandon()
  private final String startHead; // the chain's head when opened

  /** Stamps each record ({@code ts}, milliseconds since the epoch). */
  private final Clock clock;

  private volatile boolean closed;
  private volatile IOException failure;
  private volatile Consumer<IOException> onFailure = e -> {};

  private AuditLog() {
    this.clock = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC); // records nothing: never read
    this.queue = null;
    this.writer = null;
    this.file = null;
    this.chain = null;
    this.made = List.of();
    this.startHead = null;
    this.owned = null;
  }

  private AuditLog(Path file, Duration waitForOwner, Digester sha256, Clock clock)
      throws IOException {
    this.clock = clock;
    this.file = file;
    Path lock = file.resolveSibling(file.getFileName() + ".lock");
    this.made = new ArrayList<>();
    if (!Files.exists(file)) {
      made.add(file);
    }
    if (!Files.exists(lock)) {
      made.add(lock);
    }
    this.queue = new ArrayBlockingQueue<>(CAPACITY);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null && !Files.isDirectory(parent)) {
      try {
        for (Path p = parent; p != null && !Files.exists(p); p = p.getParent()) {
          made.add(p); // children before parents: deleted in this order by abandon()
        }
        OwnedFile.createMissing(parent); // owner-only, as the log
      } catch (IOException e) {
        throw new IOException("audit log " + file + ": cannot create its directory: " + e, e);
      }
    }
    // Owned before it is read or written: a second writer would fork the hash chain.
    this.owned = OwnedFile.claim(file, "audit log", waitForOwner);
    OutputStream out;
    boolean torn;
    Optional<String> head;
    try {
      head = AuditChain.headOf(file, sha256);
      torn = AuditChain.endsMidLine(file);
      out =
          new BufferedOutputStream(
              Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
              1 << 16);
    } catch (IOException | RuntimeException e) {
      owned.close();
      throw e;
    }
    if (head.isPresent()) {
      this.chain = new AuditChain(head.get(), sha256);
    } else {
      // Keep what is there (it is evidence) and start a new chain on a fresh line; verify-audit
      // will report the break at exactly this point.
      log.error(
          "audit log {} does not end in an intact chained record (a torn write, another format or"
              + " an edit); new records start a new chain after it",
          file);
      if (torn) {
        try {
          out.write('\n');
        } catch (IOException e) {
          out.close();
          owned.close();
          throw e;
        }
      }
      this.chain = new AuditChain(AuditChain.GENESIS, sha256);
    }
    this.startHead = chain.head();
    this.writer = Threads.start("portcullis-audit", () -> run(out));
  }

  /** An audit log appending to {@code file}, or {@link #NONE} for null. */
  public static AuditLog open(Path file) throws IOException {
    return open(file, Duration.ZERO);
  }

  /** As {@link #open(Path)}, stamping records with {@code clock}. */
  public static AuditLog open(Path file, Clock clock) throws IOException {
    return open(file, Duration.ZERO, BuiltInCrypto.sha256(), clock);
  }

  /**
   * As {@link #open(Path)}, waiting up to {@code waitForOwner} for another writer to give the file
   * up (a command-line tool run twice at once; a server never waits).
   */
  public static AuditLog open(Path file, Duration waitForOwner) throws IOException {
    return open(file, waitForOwner, BuiltInCrypto.sha256());
  }

  /** As {@link #open(Path, Duration)}, chaining with {@code sha256} (the PDP's crypto registry). */
  public static AuditLog open(Path file, Duration waitForOwner, Digester sha256)
      throws IOException {
    return open(file, waitForOwner, sha256, Clock.systemUTC());
  }

  /** As {@link #open(Path, Duration, Digester)}, stamping records with {@code clock}. */
  public static AuditLog open(Path file, Duration waitForOwner, Digester sha256, Clock clock)
      throws IOException {
    return file == null ? NONE : new AuditLog(file, waitForOwner, sha256, clock);
  }

  /**
   * What to do if the log cannot be written any more (a full or failed disk): a component that
   * cannot audit must stop serving. Called once, from the writer thread.
   */
  public void onFailure(Consumer<IOException> action) {
    this.onFailure = action;
  }

  /** Why writing stopped, or null while the log is healthy. */
  public IOException failure() {
    return failure;
  }

  /** Records an event: {@code kv} alternates keys and values; null values are left out. */
  public void record(String event, Object... kv) {
    if (queue == null || closed) {
      return;
    }
    offer(start(event), kv);
  }

  /**
   * Records an event on a PEP connection: every such record names the PEP id (null before the
   * Client-Open) and the peer's address and port, then the event's own {@code kv}.
   */
  public void recordPeer(String event, String pep, String peer, Object... kv) {
    if (queue == null || closed) {
      return;
    }
    offer(peerRecord(event, pep, peer), kv);
  }

  private Map<String, Object> peerRecord(String event, String pep, String peer) {
    Map<String, Object> m = start(event);
    if (pep != null) {
      m.put("pep", pep);
    }
    m.put("peer", peer);
    return m;
  }

  /**
   * As {@link #recordPeer}, adding the connection's TLS session: {@code tlsSession} (the session id
   * in hex) and {@code tlsHandshake} (full, resumed or unknown), or {@code "tls": "none"} on a
   * plain connection.
   */
  public void recordConnection(
      String event, String pep, String peer, String tlsSession, String tlsHandshake, Object... kv) {
    if (queue == null || closed) {
      return;
    }
    Map<String, Object> m = peerRecord(event, pep, peer);
    if (tlsHandshake == null) {
      m.put("tls", "none");
    } else {
      m.put("tlsSession", tlsSession);
      m.put("tlsHandshake", tlsHandshake);
    }
    offer(m, kv);
  }

  private Map<String, Object> start(String event) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ts", clock.millis());
    m.put("event", event);
    return m;
  }

  private void offer(Map<String, Object> m, Object[] kv) {
    for (int i = 0; i + 1 < kv.length; i += 2) {
      if (kv[i + 1] != null) {
        m.put(String.valueOf(kv[i]), kv[i + 1]);
      }
    }
    if (!queue.offer(m)) {
      waitForRoom(m);
    }
  }

  /**
   * The queue is full: the writer is behind (a PDP at full load makes records several times faster
   * than one thread seals and writes them). No record is dropped while the log works: the caller
   * waits for room, which slows whoever makes records (a PDP's event loop, so its decisions) to the
   * writer's pace; a PDP does not decide without recording. Only a log that has failed or is
   * closing drops what still comes, counted.
   */
  private void waitForRoom(Map<String, Object> m) {
    heldUp.increment();
    try {
      while (!queue.offer(m, 100, TimeUnit.MILLISECONDS)) {
        if (failure != null || closed) {
          dropped.increment();
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      dropped.increment();
    }
  }

  /** False for {@link #NONE}: callers on hot paths skip building records. */
  public boolean enabled() {
    return queue != null;
  }

  public long dropped() {
    return dropped.sum();
  }

  private void run(OutputStream out) {
    List<Map<String, Object>> batch = new ArrayList<>(256);
    try (out) {
      while (!closed || !queue.isEmpty()) {
        Map<String, Object> first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, 1023);
        for (Map<String, Object> m : batch) {
          out.write(chain.seal(JSON.writeValueAsBytes(m)));
          out.write('\n');
        }
        out.flush();
        batch.clear();
      }
    } catch (IOException e) {
      failure = e;
      log.error("audit log {} cannot be written: {}", file, e.toString());
      onFailure.accept(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * For a component that did not start (a port in use, say): closes the log and, when nothing was
   * ever recorded in it, removes what opening it made (the file, its lock file, the directories
   * created for them), so a failed start leaves nothing behind. A log that already existed is left
   * as it was.
   */
  public synchronized void abandon() {
    close();
    if (chain == null || !chain.head().equals(startHead)) {
      return; // NONE, or something was recorded: evidence stays
    }
    for (Path p : made) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        log.debug("audit log {}: {} not removed: {}", file, p, e.toString());
      }
    }
  }

  /** Writes what is queued and stops; again is a no-op. */
  @Override
  public synchronized void close() {
    if (writer == null || closed) {
      return;
    }
    closed = true;
    try {
      writer.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (heldUp.sum() > 0) {
      log.info(
          "audit log {}: {} records waited for the writer to catch up (none dropped for it)",
          file,
          heldUp.sum());
    }
    if (dropped.sum() > 0) {
      log.warn(
          "audit log {}: {} records dropped: they came after it failed or while it closed",
          file,
          dropped.sum());
    }
    try {
      owned.close();
    } catch (IOException e) {
      log.warn("audit log {}: lock not released cleanly: {}", file, e.toString());
    }
    if (failure != null) {
      log.error("audit log {} closed after a write failure; records after it are lost", file);
      return;
    }
    // The head outside the file is what shows a truncated log: keep this line elsewhere.
    log.info("audit log {} closed, chain head {}", file, chainHead());
  }

  /** The hash of the newest record written, for comparison with {@code verify-audit}. */
  public String chainHead() {
    return chain == null ? null : chain.head();
  }
}
