package dev.portcullis.active.auth;

import dev.portcullis.active.net.Https;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.support.LogSummary;
import dev.portcullis.support.OwnedFile;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Authorization Server's audit file and refusals: every authenticated decision appended with
 * the signed request, refusals before the sender is known only counted and summarised (one record a
 * minute, one log line per kind), never written out. The file is owned ({@link OwnedFile}). Once a
 * record cannot be written the audit is unhealthy, and the server grants nothing more.
 */
final class AuthAudit implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AuthAudit.class);

  private final Path file;
  private final Clock clock;
  private final OwnedFile owned;
  private final Writer out;
  private final LogSummary refusals;
  private final Map<String, LongAdder> unauthenticated = new ConcurrentHashMap<>();
  private final Map<String, Long> summarised = new ConcurrentHashMap<>(); // totals already reported
  private volatile IOException failure;

  /** Claims {@code file} (making its directory if needed) and opens it for appending. */
  AuthAudit(Path file, Clock clock) throws IOException {
    this.file = file.toAbsolutePath().normalize();
    this.clock = clock;
    this.refusals = new LogSummary(log, "refused session requests", Duration.ofMinutes(1), clock);
    Path dir = this.file.getParent();
    if (dir != null) {
      OwnedFile.createMissing(dir);
    }
    this.owned = OwnedFile.claim(this.file, "audit log");
    try {
      this.out =
          Files.newBufferedWriter(this.file, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    } catch (IOException e) {
      owned.close();
      throw e;
    }
  }

  Path file() {
    return file;
  }

  /** False once a record could not be written. */
  boolean healthy() {
    return failure == null;
  }

  /** Appends a record; false if it cannot (and from then on the audit is unhealthy). */
  synchronized boolean record(
      String decision, String detail, String user, byte[] body, String signature) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("time", clock.instant().toString());
    line.put("decision", decision);
    line.put("detail", detail);
    line.put("user", user);
    line.put("request", body == null ? null : Base64.getEncoder().encodeToString(body));
    line.put("signature", signature);
    try {
      out.write(Https.JSON.writeValueAsString(line));
      out.write('\n');
      out.flush();
      return true;
    } catch (IOException e) {
      if (failure == null) {
        log.error(
            "cannot append to the audit file {}: {}; refusing every request from now on",
            file,
            e.getMessage());
      }
      failure = e;
      return false;
    }
  }

  /** A refusal of an authenticated user's request: logged (summarised) and audited. */
  HttpsEndpoint.Response refuse(int status, String why, String user, byte[] body, String sig) {
    refusals.warn(
        user + " " + status, "refused a session request of {}: {} ({})", user, why, status);
    record("refused " + status, why, user, body, sig);
    return HttpsEndpoint.Response.error(status, why);
  }

  /** A refusal before the sender is known: counted and summarised, never written out in full. */
  HttpsEndpoint.Response refuseUnauthenticated(String reason, int status, String why) {
    unauthenticated.computeIfAbsent(reason, k -> new LongAdder()).increment();
    refusals.warn(reason, "refused a session request ({}): {}", status, why);
    return HttpsEndpoint.Response.error(status, why);
  }

  /** Requests refused before their sender was authenticated, by reason, since the start. */
  Map<String, Long> unauthenticated() {
    Map<String, Long> m = new TreeMap<>();
    unauthenticated.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  /** The summary of unauthenticated refusals since the last one: a log line and one record. */
  void summarise() {
    refusals.flush();
    Map<String, Long> counts = new TreeMap<>();
    unauthenticated.forEach(
        (k, v) -> {
          long total = v.sum();
          long n = total - summarised.getOrDefault(k, 0L);
          if (n > 0) {
            counts.put(k, n);
            summarised.put(k, total);
          }
        });
    if (!counts.isEmpty()) {
      record("refused unauthenticated", counts.toString(), null, null, null);
    }
  }

  /**
   * Text from an unauthenticated request as it may appear in a log line or an answer: printable
   * characters only (no forged log lines), at most 80 of them.
   */
  static String shown(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), 80));
    for (int i = 0; i < s.length() && b.length() < 80; i++) {
      char c = s.charAt(i);
      b.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    return s.length() > 80 ? b + "..." : b.toString();
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
