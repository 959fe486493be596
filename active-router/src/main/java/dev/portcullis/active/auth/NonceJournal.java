package dev.portcullis.active.auth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.portcullis.active.net.Https;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.OwnedFile;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nonces of accepted session requests, kept on disk until the request could no longer pass the
 * time check, so a request is usable once even across restarts. One JSON line per nonce, {@code
 * {"until": UNIX_SECONDS, "key": "USER/NONCE"}}, written and forced to disk before the grant is
 * answered; at open, expired lines are dropped by rewriting the file (atomically). Owned ({@link
 * OwnedFile}): one Authorization Server per journal. Only nonces of requests whose signature
 * verified are recorded.
 */
final class NonceJournal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NonceJournal.class);

  private final Path file;
  private final OwnedFile owned;
  private final long max;
  private final Map<String, Long> live = new ConcurrentHashMap<>();
  private FileChannel out;

  /**
   * Opens (creating owner-only) the journal; nonces whose {@code until} is before {@code now} are
   * dropped. At most {@code max} live nonces are kept.
   */
  NonceJournal(Path file, long now, long max) throws IOException {
    this.file = file.toAbsolutePath().normalize();
    this.max = max;
    this.owned = OwnedFile.claim(this.file, "nonce journal");
    try {
      load(now);
      compact();
      this.out = FileChannel.open(this.file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    } catch (IOException | RuntimeException e) {
      owned.close();
      throw e;
    }
    log.info("nonce journal {}: {} nonces still in their validity window", this.file, live.size());
  }

  private void load(long now) throws IOException {
    long line = 0;
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String s; (s = in.readLine()) != null; ) {
        line++;
        JsonNode n;
        try {
          n = Https.JSON.readTree(s);
        } catch (IOException e) {
          n = null;
        }
        if (n == null || !n.path("until").canConvertToLong() || !n.path("key").isTextual()) {
          // A torn last line after a crash: the request it recorded was not answered.
          log.warn("nonce journal {}: line {} unreadable, skipped", file, line);
          continue;
        }
        long until = n.get("until").asLong();
        if (until >= now) {
          live.merge(n.get("key").asText(), until, Math::max);
        }
      }
    } catch (MalformedInputException e) {
      throw new IOException(
          "nonce journal "
              + file
              + ": not UTF-8 after line "
              + line
              + "; move it aside to start over",
          e);
    }
  }

  /** Rewrites the file with the live nonces only, all or nothing. */
  private void compact() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (Map.Entry<String, Long> e : live.entrySet()) {
      all.write(line(e.getKey(), e.getValue()));
    }
    DurableFiles.write(file, all.toByteArray());
  }

  private static byte[] line(String key, long until) throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("until", until);
    m.put("key", key);
    return (Https.JSON.writeValueAsString(m) + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /** Outcome of {@link #add}. */
  enum Added {
    NEW,
    SEEN,
    FULL
  }

  /**
   * Records {@code key} as used until {@code until}, durably, unless it was used before or the
   * journal is full.
   */
  synchronized Added add(String key, long until) throws IOException {
    if (live.containsKey(key)) {
      return Added.SEEN;
    }
    if (live.size() >= max) {
      return Added.FULL;
    }
    out.write(ByteBuffer.wrap(line(key, until)));
    out.force(false);
    live.put(key, until);
    return Added.NEW;
  }

  /** Forgets nonces whose requests can no longer pass the time check. */
  void expire(long now) {
    live.values().removeIf(until -> until < now);
  }

  int size() {
    return live.size();
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      out.close();
    } finally {
      owned.close();
    }
  }
}
