package dev.portcullis.pdp.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.pdp.connection.RevokedSubjects.Revocation;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.StorePaths;
import dev.portcullis.state.Versioned;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's revocations carried across a fleet (docs/operate.md, "On a fleet"): each one is an
 * entry {@code /revoked/SUBJECT} of the fleet's store that lives until it is restored, whichever
 * member the operator asked and whichever members come and go; every member watches them and
 * applies each as its own. A restoration marks the entry with who restored it, so that every
 * member's audit names the operator.
 *
 * <p>Entries are JSON: {@code {"subject","by","reason","at","member"}}, and {@code "restoredBy"}
 * once restored. A restored entry stays, so marked, until the subject is revoked again: a watch may
 * see a change and a deletion that follows it as the deletion alone, which would lose who restored
 * it (one small entry per subject ever revoked).
 *
 * <p>One owner, the PDP's housekeeping thread: it writes the entries (a store write is I/O: never
 * on an event loop), and the watch's events are handed to it, so the listener is called there, in
 * the order the store reported them, each after the writes this member made before it.
 */
public final class FleetRevocations implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FleetRevocations.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where the revocations are kept in the fleet's store. */
  public static final String ROOT = "/revoked";

  /** What a member does with the fleet's revocations. */
  public interface Listener {
    /** {@code r} was revoked by an operator at member {@code member} (maybe this one). */
    void revoked(Revocation r, String member);

    /** {@code subject}'s revocation ended, by {@code by} (null when the entry said not). */
    void restored(String subject, String by);
  }

  private final StateStore store;
  private final Supplier<String> member;

  /**
   * The version of each entry this member last wrote: a change the watch delivers later than this
   * member's own next write (its own revocation, seen after it was restored here) is older than
   * what this member has already applied, and is not applied again. The owner's alone.
   */
  private final Map<String, Integer> written = new HashMap<>();

  private final StateStore.Subscription watch;
  private final CountDownLatch ready = new CountDownLatch(1);

  /**
   * Follows the fleet's revocations: those in force now are applied before this returns (a member
   * that starts applies them before it serves), then each change as it comes.
   *
   * @param member this member's id, written with the revocations it makes
   * @param owner the thread that writes the entries ({@link #publish}, {@link #withdraw}); the
   *     watch's events are handed to it, and the listener called there. Not the thread that calls
   *     this constructor, which waits for it
   * @throws StoreException if the store cannot be watched, or its revocations are not read within
   *     30 s
   */
  public FleetRevocations(
      StateStore store, Supplier<String> member, Listener listener, Executor owner)
      throws StoreException {
    this.store = store;
    this.member = member;
    this.watch = store.watch(ROOT, e -> owner.execute(() -> changed(e, listener)));
    boolean read;
    try {
      read = ready.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      read = false;
    }
    if (!read) {
      watch.close();
      throw new StoreException("the fleet's revocations were not read within 30 s");
    }
  }

  private void changed(StoreEvent e, Listener listener) {
    if (e.kind() == StoreEvent.Kind.READY) {
      ready.countDown();
      return;
    }
    Integer mine = written.get(e.path());
    if (mine != null && e.kind() == StoreEvent.Kind.PUT && e.value().version() < mine) {
      return; // older than this member's own last write, which it applied when it wrote it
    }
    String subject;
    try {
      subject = StorePaths.name(e.path().substring(ROOT.length() + 1));
    } catch (IllegalArgumentException bad) {
      log.warn("fleet revocation {}: not a subject's entry, ignored", e.path());
      return;
    }
    if (e.kind() != StoreEvent.Kind.PUT) {
      listener.restored(subject, null);
      return;
    }
    JsonNode n;
    try {
      n = JSON.readTree(e.value().data());
    } catch (IOException bad) {
      n = null;
    }
    if (n == null || !n.path("subject").asText("").equals(subject) || !n.hasNonNull("by")) {
      // a revocation this member cannot read is still one: fail closed, say so
      log.warn("fleet revocation {}: unreadable entry, the subject is revoked", e.path());
      listener.revoked(
          new Revocation(subject, "(unknown)", "unreadable fleet revocation", Instant.EPOCH), "?");
      return;
    }
    if (n.hasNonNull("restoredBy")) {
      listener.restored(subject, n.get("restoredBy").asText());
      return;
    }
    Instant at;
    try {
      at = Instant.parse(n.path("at").asText());
    } catch (RuntimeException bad) {
      at = Instant.EPOCH;
    }
    listener.revoked(
        new Revocation(subject, n.get("by").asText(), n.path("reason").asText(""), at),
        n.path("member").asText("?"));
  }

  /**
   * Writes {@code r} for the fleet (over a restored entry of the subject); false if the subject is
   * revoked there already.
   */
  public boolean publish(Revocation r) throws StoreException {
    byte[] data =
        JSON.createObjectNode()
            .put("subject", r.subject())
            .put("by", r.by())
            .put("reason", r.reason())
            .put("at", r.at().toString())
            .put("member", member.get())
            .toString()
            .getBytes(StandardCharsets.UTF_8);
    String path = path(r.subject());
    for (int attempt = 0; attempt < 3; attempt++) {
      if (store.create(path, data, Lifetime.DURABLE)) {
        written.put(path, 0);
        return true;
      }
      Optional<Versioned> was = store.read(path);
      if (was.isEmpty()) {
        continue; // deleted meanwhile: create again
      }
      if (!restored(was.get())) {
        return false; // revoked in the fleet already: the first revocation stays
      }
      if (store.replace(path, data, was.get().version())) {
        written.put(path, was.get().version() + 1);
        return true;
      }
    }
    throw new StoreException("the fleet's revocation of " + r.subject() + " kept changing");
  }

  private static boolean restored(Versioned v) {
    try {
      return JSON.readTree(v.data()).hasNonNull("restoredBy");
    } catch (IOException unreadable) {
      return false;
    }
  }

  /** Ends {@code subject}'s revocation for the fleet; false if the fleet did not hold one. */
  public boolean withdraw(String subject, String by) throws StoreException {
    String path = path(subject);
    for (int attempt = 0; attempt < 3; attempt++) {
      Optional<Versioned> v = store.read(path);
      if (v.isEmpty() || restored(v.get())) {
        return false;
      }
      com.fasterxml.jackson.databind.node.ObjectNode n;
      try {
        JsonNode read = JSON.readTree(v.get().data());
        n = read instanceof com.fasterxml.jackson.databind.node.ObjectNode o ? o : null;
      } catch (IOException unreadable) {
        n = null;
      }
      if (n == null) {
        written.remove(path);
        return store.delete(path, v.get().version()); // unreadable: gone, without who restored it
      }
      n.put("restoredBy", by);
      if (store.replace(path, n.toString().getBytes(StandardCharsets.UTF_8), v.get().version())) {
        written.put(path, v.get().version() + 1);
        return true;
      }
    }
    throw new StoreException("the fleet's revocation of " + subject + " kept changing");
  }

  private static String path(String subject) {
    return ROOT + "/" + StorePaths.segment(subject);
  }

  @Override
  public void close() {
    watch.close();
  }
}
