package dev.portcullis.pdp.enrol;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.portcullis.crypto.Digester;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.OwnedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One-time enrolment credentials on disk (the dynamic VPN tunnels paper's one-time key pairs): each
 * is bound to one PEP id, expires, and goes from valid to used exactly once.
 *
 * <p>A credential is a small JSON file, in {@code valid/} until it is used and in {@code used/}
 * after. Using one is a single atomic rename from one directory to the other, made durable (both
 * directories forced to disk) before any certificate is issued: of two racing uses only one rename
 * succeeds, and a crash after the rename leaves the credential used, so it can never serve twice —
 * the safe side; a PEP whose enrolment was cut short asks the operator for a new credential. Only
 * the SHA-256 of the 256-bit secret is stored: the store does not let its reader enrol.
 *
 * <p>The files are owner-only. Thread-safe; several processes may share a store.
 */
public final class CredentialStore {
  /** Where a credential stands. */
  public enum State {
    VALID,
    USED,
    UNKNOWN
  }

  /** A credential as stored (never the secret). */
  public record Credential(
      String id, String pepId, byte[] secretHash, Instant issuedAt, Instant notAfter) {}

  /**
   * What the operator hands the PEP: the token {@code ID.SECRET} (the secret in base64url), once.
   */
  public record Issued(String id, String pepId, String token, Instant notAfter) {}

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Pattern ID = Pattern.compile("otc-[0-9a-f]{16}");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final Path valid;
  private final Path used;
  private final Digester sha256;

  private CredentialStore(Path dir, Digester sha256) {
    this.dir = dir;
    this.sha256 = sha256;
    this.valid = dir.resolve("valid");
    this.used = dir.resolve("used");
  }

  /**
   * Opens (making if needed, owner-only) the store in {@code dir}, hashing secrets with {@code
   * sha256} (the PDP's crypto registry).
   */
  public static CredentialStore open(Path dir, Digester sha256) throws IOException {
    CredentialStore s = new CredentialStore(dir.toAbsolutePath().normalize(), sha256);
    for (Path d : new Path[] {s.dir, s.valid, s.used}) {
      if (!Files.isDirectory(d)) {
        if (OwnedFile.posix()) {
          Files.createDirectories(
              d,
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
          Files.createDirectories(d);
        }
      }
    }
    return s;
  }

  public Path directory() {
    return dir;
  }

  /** Issues a credential for {@code pepId}, valid for {@code validFor} from now. */
  public Issued issue(String pepId, Duration validFor) throws IOException {
    Objects.requireNonNull(pepId, "pepId");
    if (validFor.isNegative() || validFor.isZero()) {
      throw new IllegalArgumentException("validity: " + validFor + " (expected: positive)");
    }
    byte[] idBytes = new byte[8];
    RANDOM.nextBytes(idBytes);
    String id = "otc-" + HexFormat.of().formatHex(idBytes);
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    try {
      Instant now = Instant.now();
      Instant notAfter = now.plus(validFor);
      ObjectNode n = JSON.createObjectNode();
      n.put("id", id);
      n.put("pep", pepId);
      n.put("secretSha256", HexFormat.of().formatHex(sha256(secret)));
      n.put("issuedAt", now.toString());
      n.put("notAfter", notAfter.toString());
      DurableFiles.write(
          valid.resolve(id + ".json"), JSON.writeValueAsString(n).getBytes(StandardCharsets.UTF_8));
      return new Issued(
          id,
          pepId,
          id + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(secret),
          notAfter);
    } finally {
      Arrays.fill(secret, (byte) 0);
    }
  }

  /** The credential named {@code id}, valid or used, or null. */
  public Credential lookup(String id) throws IOException {
    if (!ID.matcher(id).matches()) {
      return null;
    }
    for (Path d : new Path[] {valid, used}) {
      try {
        var n = JSON.readTree(Files.readString(d.resolve(id + ".json"), StandardCharsets.UTF_8));
        return new Credential(
            n.path("id").asText(),
            n.path("pep").asText(),
            HexFormat.of().parseHex(n.path("secretSha256").asText()),
            Instant.parse(n.path("issuedAt").asText()),
            Instant.parse(n.path("notAfter").asText()));
      } catch (NoSuchFileException e) {
        // look in the other directory
      }
    }
    return null;
  }

  public State state(String id) {
    if (!ID.matcher(id).matches()) {
      return State.UNKNOWN;
    }
    if (Files.exists(used.resolve(id + ".json"))) {
      return State.USED;
    }
    return Files.exists(valid.resolve(id + ".json")) ? State.VALID : State.UNKNOWN;
  }

  /**
   * Marks the credential used: true if this call moved it from valid to used (and the move is on
   * disk), false if it was not valid (used already, by a racing call or before a crash, or never
   * issued).
   */
  public boolean consume(String id) throws IOException {
    if (!ID.matcher(id).matches()) {
      return false;
    }
    try {
      Files.move(
          valid.resolve(id + ".json"), used.resolve(id + ".json"), StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      return false;
    }
    DurableFiles.forceDirectory(used);
    DurableFiles.forceDirectory(valid);
    return true;
  }

  /** True if {@code secret} is the credential's, compared in constant time. */
  public boolean secretMatches(Credential c, byte[] secret) {
    return MessageDigest.isEqual(sha256(secret), c.secretHash());
  }

  /** Splits a token {@code ID.SECRET}; null if it is not one. */
  public static String[] parseToken(String token) {
    int dot = token.indexOf('.');
    if (dot < 0 || !ID.matcher(token.substring(0, dot)).matches()) {
      return null;
    }
    return new String[] {token.substring(0, dot), token.substring(dot + 1)};
  }

  private byte[] sha256(byte[] b) {
    return sha256.digest(b);
  }
}
