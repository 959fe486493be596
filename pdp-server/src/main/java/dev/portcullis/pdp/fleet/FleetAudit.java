package dev.portcullis.pdp.fleet;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.Versioned;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * Audit chain heads anchored in a fleet's store: a chain alone cannot show that its newest records
 * were cut off, a head kept elsewhere can. Each PDP writes {@code /audit/anchors/ROOT} (ROOT: the
 * hash of its log's first record, which names the chain) = {@code v1 HEAD UNIX_SECONDS MEMBER}
 * every minute when the head moved, and at stop; {@code verify-audit --fleet} checks that the file
 * still reaches the anchored head.
 */
public final class FleetAudit {
  public static final String ROOT = "/audit/anchors";

  /** An anchor: the head the chain had reached, when, by which member. */
  public record Anchor(String head, Instant at, String member) {}

  private FleetAudit() {}

  /** Anchors {@code log}'s head; false if the log has no first record yet or nothing moved. */
  public static boolean anchor(StateStore store, Path log, String head, String member, Clock clock)
      throws IOException, StoreException {
    Optional<String> root = AuditChain.firstHash(log);
    if (root.isEmpty() || head == null) {
      return false;
    }
    String path = ROOT + "/" + root.get();
    byte[] v =
        ("v1 " + head + " " + clock.instant().getEpochSecond() + " " + member)
            .getBytes(StandardCharsets.US_ASCII);
    Optional<Versioned> now = store.read(path);
    if (now.isPresent()
        && new String(now.get().data(), StandardCharsets.US_ASCII).startsWith("v1 " + head + " ")) {
      return false;
    }
    return now.isEmpty()
        ? store.create(path, v, Lifetime.DURABLE)
        : store.replace(path, v, now.get().version());
  }

  /** The anchor of the chain {@code log} begins, or empty. */
  public static Optional<Anchor> anchorOf(StateStore store, Path log)
      throws IOException, StoreException {
    Optional<String> root = AuditChain.firstHash(log);
    if (root.isEmpty()) {
      return Optional.empty();
    }
    Optional<Versioned> v = store.readLatest(ROOT + "/" + root.get());
    if (v.isEmpty()) {
      return Optional.empty();
    }
    String[] f = new String(v.get().data(), StandardCharsets.US_ASCII).split(" ");
    if (f.length != 4 || !f[0].equals("v1") || !f[1].matches("[0-9a-f]{64}")) {
      throw new StoreException(ROOT + "/" + root.get() + ": not an audit anchor");
    }
    return Optional.of(new Anchor(f[1], Instant.ofEpochSecond(Long.parseLong(f[2])), f[3]));
  }
}
