package dev.portcullis.pdp.enrol;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.portcullis.crypto.Digester;
import dev.portcullis.state.StateStore;
import dev.portcullis.support.OwnedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
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
 *
 * <p>In a fleet on ZooKeeper ({@link #open(Path, Digester, StateStore)}) the records live in the
 * fleet's store instead, so that a credential is used once across every PDP: issuing creates {@code
 * /enrolment/issued/ID}, using it creates {@code /enrolment/used/ID}, which the store's consensus
 * lets exactly one PDP do, and which is durable on a quorum before any certificate is issued. The
 * directory then holds only the issuing log.
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
  private final Digester sha256;
  private final CredentialLedger ledger;
  private final Clock clock;

  private CredentialStore(Path dir, Digester sha256, CredentialLedger ledger, Clock clock) {
    this.clock = clock;
    this.dir = dir;
    this.sha256 = sha256;
    this.ledger = ledger;
  }

  /**
   * Opens (making if needed, owner-only) the store in {@code dir}, hashing secrets with {@code
   * sha256} (the PDP's crypto registry).
   */
  public static CredentialStore open(Path dir, Digester sha256) throws IOException {
    return open(dir, sha256, null);
  }

  /**
   * Opens the store whose records are in {@code fleet} (a fleet's ZooKeeper store) when it is
   * given, else in {@code dir}; {@code dir} holds the issuing log either way.
   */
  public static CredentialStore open(Path dir, Digester sha256, StateStore fleet)
      throws IOException {
    return open(dir, sha256, fleet, Clock.systemUTC());
  }

  /** As {@link #open(Path, Digester, StateStore)}, issuing "from now" by {@code clock}. */
  public static CredentialStore open(Path dir, Digester sha256, StateStore fleet, Clock clock)
      throws IOException {
    Path home = dir.toAbsolutePath().normalize();
    Path valid = home.resolve("valid");
    Path used = home.resolve("used");
    CredentialStore s =
        new CredentialStore(
            home,
            sha256,
            fleet == null
                ? new CredentialLedger.InFiles(valid, used)
                : new CredentialLedger.InFleet(fleet),
            clock);
    for (Path d : fleet == null ? new Path[] {home, valid, used} : new Path[] {home}) {
      OwnedFile.privateDirectory(d, "credential store directory");
    }
    return s;
  }

  public Path directory() {
    return dir;
  }

  /**
   * Issues a credential for {@code pepId}, valid for {@code validFor} from now (the store's clock).
   */
  public Issued issue(String pepId, Duration validFor) throws IOException {
    return issue(pepId, validFor, clock.instant());
  }

  /**
   * As {@link #issue(String, Duration)}, issued at {@code now}: the PDP's clock (a test's clock
   * moved by hand, where the credential must expire without a wait).
   */
  public Issued issue(String pepId, Duration validFor, Instant now) throws IOException {
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
      Instant notAfter = now.plus(validFor);
      ObjectNode n = JSON.createObjectNode();
      n.put("id", id);
      n.put("pep", pepId);
      n.put("secretSha256", HexFormat.of().formatHex(sha256(secret)));
      n.put("issuedAt", now.toString());
      n.put("notAfter", notAfter.toString());
      ledger.write(id, JSON.writeValueAsString(n).getBytes(StandardCharsets.UTF_8));
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
    byte[] record = ledger.read(id);
    if (record == null) {
      return null;
    }
    var n = JSON.readTree(new String(record, StandardCharsets.UTF_8));
    return new Credential(
        n.path("id").asText(),
        n.path("pep").asText(),
        HexFormat.of().parseHex(n.path("secretSha256").asText()),
        Instant.parse(n.path("issuedAt").asText()),
        Instant.parse(n.path("notAfter").asText()));
  }

  public State state(String id) throws IOException {
    if (!ID.matcher(id).matches()) {
      return State.UNKNOWN;
    }
    return ledger.state(id);
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
    return ledger.consume(id);
  }

  /**
   * Marks the (used) credential as having carried tunnel {@code tunnel}: true if this call did, on
   * disk or on the fleet's quorum; false if it carried one before (here, at another member, or
   * before a restart).
   */
  public boolean spendOnTunnel(String id, String tunnel) throws IOException {
    if (!ID.matcher(id).matches()) {
      return false;
    }
    return ledger.spendOnTunnel(id, tunnel);
  }

  /** Whether the credential carried its one tunnel already (here, at another member, before). */
  public boolean carriedTunnel(String id) throws IOException {
    return ID.matcher(id).matches() && ledger.carriedTunnel(id);
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
