package dev.portcullis.audit;

import dev.portcullis.crypto.Digester;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hash chain that makes the audit log tamper-evident. Every record is one JSON object on one
 * line whose last two members are {@code "prev"} (the previous record's hash, 64 zero digits for
 * the first record of a file) and {@code "hash"}:
 *
 * <pre>
 * hash = hex(SHA-256(UTF-8 bytes of the line with its trailing ,"hash":"..." member removed))
 * </pre>
 *
 * <p>So a record's hash covers its content and its link to the record before it: altering a record
 * breaks its own hash, removing or reordering records breaks the next record's {@code prev}. What a
 * chain alone cannot show is the loss of the newest records (truncation); the PDP logs the chain
 * head when it stops, which an operator can keep elsewhere and compare with the file's last hash.
 */
public final class AuditChain {
  /** The {@code prev} of the first record in a file. */
  public static final String GENESIS = "0".repeat(64);

  private static final Pattern TAIL =
      Pattern.compile(",\"prev\":\"([0-9a-f]{64})\",\"hash\":\"([0-9a-f]{64})\"}$");
  private static final HexFormat HEX = HexFormat.of();
  private static final int MAX_RECORD = 1 << 20;

  private final Digester sha256;
  private volatile String head;

  /** A chain that continues after the record whose hash is {@code head}, hashed by the defaults. */
  public AuditChain(String head) {
    this(head, BuiltInCrypto.sha256());
  }

  /** As {@link #AuditChain(String)}, hashing with {@code sha256} (the PDP's crypto registry). */
  public AuditChain(String head, Digester sha256) {
    this.head = head;
    this.sha256 = sha256;
  }

  /** The hash of the newest record, {@link #GENESIS} before the first. */
  public String head() {
    return head;
  }

  /**
   * Seals a serialised JSON object (ending in {@code '}'}, without {@code prev} or {@code hash})
   * into the next line of the chain and advances the head.
   */
  public String seal(String json) {
    return new String(seal(json.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
  }

  /**
   * As {@link #seal(String)}, on the object's UTF-8 bytes, returning the line's: what the audit
   * writer uses, in one buffer for the hashed body and one for the line (the string form copied and
   * re-encoded the record four times, the largest part of the writer's cost per record).
   */
  public byte[] seal(byte[] json) {
    int n = json.length;
    if (n == 0 || json[n - 1] != '}') {
      throw new IllegalArgumentException("not a JSON object");
    }
    byte[] prev =
        ((n > 2 ? "," : "") + "\"prev\":\"" + head + "\"}").getBytes(StandardCharsets.US_ASCII);
    byte[] body = Arrays.copyOf(json, n - 1 + prev.length);
    System.arraycopy(prev, 0, body, n - 1, prev.length);
    String hash = HEX.formatHex(sha256.digest(body));
    head = hash;
    byte[] tail = (",\"hash\":\"" + hash + "\"}").getBytes(StandardCharsets.US_ASCII);
    byte[] line = Arrays.copyOf(body, body.length - 1 + tail.length);
    System.arraycopy(tail, 0, line, body.length - 1, tail.length);
    return line;
  }

  private String hash(String body) {
    return HEX.formatHex(sha256.digest(body.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The hash to continue {@code file} from: {@link #GENESIS} for a missing or empty file, the last
   * record's hash if it is intact, empty if the file ends in something that is not an intact
   * chained record (a torn write after a crash, a foreign format, tampering).
   */
  public static Optional<String> headOf(Path file) throws IOException {
    return headOf(file, BuiltInCrypto.sha256());
  }

  /** As {@link #headOf(Path)}, hashing with {@code sha256}. */
  public static Optional<String> headOf(Path file, Digester sha256) throws IOException {
    if (!Files.exists(file) || Files.size(file) == 0) {
      return Optional.of(GENESIS);
    }
    String last = lastLine(file);
    if (last == null) {
      return Optional.empty();
    }
    Link link = new AuditChain(GENESIS, sha256).link(last);
    return link != null && link.sealed() ? Optional.of(link.hash()) : Optional.empty();
  }

  /**
   * The hash of the file's first record, which names its chain (a log anchored in a fleet's store
   * is found by it), or empty when the file has no sealed first record.
   */
  public static Optional<String> firstHash(Path file) throws IOException {
    if (!Files.exists(file) || Files.size(file) == 0) {
      return Optional.empty();
    }
    try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
      return lines
          .findFirst()
          .map(TAIL::matcher)
          .filter(m -> m.find() && m.group(1).equals(GENESIS))
          .map(m -> m.group(2));
    }
  }

  /** A line's trailing {@code prev} and {@code hash}, and whether the hash matches the line. */
  private record Link(String prev, String hash, boolean sealed) {}

  /** The line's link, null if it does not end in {@code prev} and {@code hash} members. */
  private Link link(String line) {
    Matcher m = TAIL.matcher(line);
    if (!m.find()) {
      return null;
    }
    String body = line.substring(0, m.start()) + ",\"prev\":\"" + m.group(1) + "\"}";
    return new Link(m.group(1), m.group(2), hash(body).equals(m.group(2)));
  }

  /** True if {@code file} is non-empty and its last byte is not a newline (a torn write). */
  static boolean endsMidLine(Path file) throws IOException {
    if (!Files.exists(file) || Files.size(file) == 0) {
      return false;
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      raf.seek(raf.length() - 1);
      return raf.read() != '\n';
    }
  }

  /**
   * The last line if the file ends with a newline and that line fits in the tail we read (records
   * are a few hundred bytes; {@link #MAX_RECORD} is generous), null otherwise.
   */
  private static String lastLine(Path file) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long end = raf.length();
      int n = (int) Math.min(end, MAX_RECORD + 1);
      byte[] tail = new byte[n];
      raf.seek(end - n);
      raf.readFully(tail);
      if (tail[n - 1] != '\n') {
        return null;
      }
      int start = n - 2;
      while (start >= 0 && tail[start] != '\n') {
        start--;
      }
      if (start < 0 && end > n) {
        return null;
      }
      return new String(tail, start + 1, n - 2 - start, StandardCharsets.UTF_8);
    }
  }

  /** The line (from 1) of the record whose hash is {@code hash}, 0 if no record has it. */
  public static long lineOf(Path file, String hash) throws IOException {
    String member = ",\"hash\":\"" + hash + "\"}";
    try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
      var it = lines.iterator();
      for (long n = 1; it.hasNext(); n++) {
        if (it.next().endsWith(member)) {
          return n;
        }
      }
      return 0;
    }
  }

  /** The outcome of {@link #verify}: intact, or the first broken record and why. */
  public record Verdict(long records, String head, long brokenLine, String problem) {
    public boolean intact() {
      return problem == null;
    }
  }

  /**
   * Reads {@code file} from the start and checks every record's hash and link, and that its bytes
   * are exactly what the writer writes: strict UTF-8, each record ending in a single LF. Anything
   * else (a torn multi-byte character, CR LF endings, a last line without its newline) is a break,
   * named by line and byte offset. Stops at the first broken record: line numbers count from 1,
   * byte offsets from 0.
   */
  public static Verdict verify(Path file) throws IOException {
    return verify(file, BuiltInCrypto.sha256());
  }

  /** As {@link #verify(Path)}, hashing with {@code sha256}. */
  public static Verdict verify(Path file, Digester sha256) throws IOException {
    AuditChain c = new AuditChain(GENESIS, sha256);
    String expectedPrev = GENESIS;
    long line = 0;
    long offset = 0;
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteArrayOutputStream record = new ByteArrayOutputStream(512);
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      while (true) {
        record.reset();
        long start = offset;
        boolean newline = false;
        for (int b; (b = in.read()) != -1; ) {
          offset++;
          if (b == '\n') {
            newline = true;
            break;
          }
          if (record.size() > MAX_RECORD) {
            return new Verdict(
                line, expectedPrev, line + 1, "a line longer than " + MAX_RECORD + " bytes");
          }
          record.write(b);
        }
        if (!newline && record.size() == 0) {
          break; // the end, after a complete last record
        }
        line++;
        byte[] bytes = record.toByteArray();
        String problem = null;
        if (!newline) {
          problem =
              "the file ends in a line without its newline at byte offset "
                  + start
                  + " (a torn write)";
        } else if (bytes.length > 0 && bytes[bytes.length - 1] == '\r') {
          problem =
              "the line ends in CR LF at byte offset "
                  + (start + bytes.length - 1)
                  + ": records end in LF alone, so these are not the bytes that were written";
        }
        String s = null;
        if (problem == null) {
          CharBuffer chars = CharBuffer.allocate(bytes.length);
          ByteBuffer input = ByteBuffer.wrap(bytes);
          CoderResult r = utf8.reset().decode(input, chars, true);
          if (r.isError()) {
            problem =
                "invalid UTF-8 at byte offset "
                    + (start + input.position())
                    + " (a torn multi-byte character or foreign bytes)";
          } else {
            s = chars.flip().toString();
          }
        }
        if (problem != null) {
          return new Verdict(line - 1, expectedPrev, line, problem);
        }
        Link link = c.link(s);
        if (link == null) {
          return new Verdict(
              line - 1, expectedPrev, line, "not a chained record (no trailing prev and hash)");
        }
        if (!link.sealed()) {
          return new Verdict(
              line - 1, expectedPrev, line, "hash does not match the record: it was altered");
        }
        if (!link.prev().equals(expectedPrev)) {
          return new Verdict(
              line - 1,
              expectedPrev,
              line,
              line > 1 && link.prev().equals(GENESIS)
                  ? "the chain starts again here: the records before it were not continued"
                      + " (a torn write or an edited file)"
                  : "prev does not match the record before it: records were removed,"
                      + " inserted or reordered");
        }
        expectedPrev = link.hash();
      }
    }
    return new Verdict(line, expectedPrev, 0, null);
  }
}
