package dev.portcullis.pdp;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Audit records as JSON lines, one per decision, report, connection event and policy change. Event
 * loops only enqueue (a bounded queue: an audit disk that cannot keep up costs records, counted and
 * logged, never a stalled PDP); one background thread formats and writes in batches.
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
  private volatile boolean closed;

  private AuditLog() {
    this.queue = null;
    this.writer = null;
    this.file = null;
  }

  private AuditLog(Path file) throws IOException {
    this.file = file;
    this.queue = new ArrayBlockingQueue<>(CAPACITY);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    BufferedWriter out =
        Files.newBufferedWriter(
            file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    this.writer = new Thread(() -> run(out), "portcullis-audit");
    writer.setDaemon(true);
    writer.start();
  }

  /** An audit log appending to {@code file}, or {@link #NONE} for null. */
  public static AuditLog open(Path file) throws IOException {
    return file == null ? NONE : new AuditLog(file);
  }

  /** Records an event: {@code kv} alternates keys and values. */
  public void record(String event, Object... kv) {
    if (queue == null || closed) {
      return;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ts", System.currentTimeMillis());
    m.put("event", event);
    for (int i = 0; i + 1 < kv.length; i += 2) {
      if (kv[i + 1] != null) {
        m.put(String.valueOf(kv[i]), kv[i + 1]);
      }
    }
    if (!queue.offer(m)) {
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

  private void run(BufferedWriter out) {
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
          out.write(JSON.writeValueAsString(m));
          out.newLine();
        }
        out.flush();
        batch.clear();
      }
    } catch (IOException e) {
      log.error("audit log {} stopped: {}", file, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes what is queued and stops. */
  @Override
  public void close() {
    if (writer == null) {
      return;
    }
    closed = true;
    try {
      writer.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (dropped.sum() > 0) {
      log.warn("audit log {}: {} records dropped (queue full)", file, dropped.sum());
    }
  }
}
