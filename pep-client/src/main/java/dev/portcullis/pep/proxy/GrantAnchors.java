package dev.portcullis.pep.proxy;

import dev.portcullis.support.Timebase;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The request states behind the grants a listener reuses ({@code grants="reuse"},
 * docs/pep-proxy.md): per subject, listener and client address, the handle whose Install gave the
 * grant (its anchor). A reused grant admits its subject's new connections without a request each,
 * so the PDP must still hold something it can take back: the anchor's request state stays installed
 * for as long as anything stands on it, after its own connection has ended too (its DRQ waits,
 * "parked"), and a policy change or revocation reaches it as a Remove like any other, which cuts
 * what was admitted on it ({@link ProxyRevocations}). Without a live anchor there is no reuse: a
 * connection is then asked for.
 *
 * <p>An anchor stops admitting (is no longer live) when its grant's validity runs out (by the time
 * base grants expire by, moved by a changed Install of the anchor), when a changed Install gives no
 * validity, when a later Install of the same subject, listener and address replaces it, or when a
 * denial there ends the grant; its request state is deleted (DRQ) once its own connection and every
 * connection admitted on it have ended as well: a connection admitted on a grant is never left open
 * with no request state at the PDP standing for it. A Remove of the anchor, or its subject's
 * revocation, forgets it at once (the caller cuts what stood on it).
 *
 * <p>The anchors belong to the proxy's books ({@link Owners}): every method runs on the books'
 * loop, and so do the grants' timers. There is no lock: the orderings that three races produced
 * under the lock this had (an Install against its connection's end, a grant against its reuse, a
 * Remove against both) are now orders of tasks on one thread.
 */
final class GrantAnchors {
  /** A subject's grants on a listener from one client address ({@link ProxiedConnection#scope}). */
  record Key(String subject, String scope) {}

  /** A grant's request state. */
  static final class Anchor {
    final String handle;
    final Key key;
    long expiresAt; // by the time base; a changed Install moves it
    boolean live = true; // the key's grant: admits new connections
    boolean parked; // its own connection has ended; its request state is kept
    int dependents; // open connections admitted on it

    Anchor(String handle, Key key, long expiresAt) {
      this.handle = handle;
      this.key = key;
      this.expiresAt = expiresAt;
    }
  }

  /**
   * Anchors one subject may keep at once (across listeners and client addresses): beyond, its
   * grants are not reused, so that one subject cannot hold the PEP's request states at the PDP.
   */
  static final int PER_SUBJECT = 16;

  private final Map<Key, Anchor> byKey = new HashMap<>(); // the live ones
  // every request state kept, oldest first (the first to yield, #yieldIdle)
  private final Map<String, Anchor> byHandle = new java.util.LinkedHashMap<>();
  private final Map<String, Integer> perSubject = new HashMap<>(); // of byHandle
  private final Consumer<String> deleteRequest;
  private final Timebase time;
  private final ScheduledExecutorService owner;
  private final int maximum;

  /**
   * @param deleteRequest deletes a request state at the PDP (DRQ), given its handle
   * @param time what grants expire by, and what runs their timers: one source, so that a test that
   *     moves one moves the other
   * @param owner the books' loop: where every method is called, and where the timers run
   * @param maximum anchors kept at most (each is a request state at the PDP); a grant beyond them
   *     is not reused, its subject's connections are asked for as without reuse
   */
  GrantAnchors(
      Consumer<String> deleteRequest, Timebase time, ScheduledExecutorService owner, int maximum) {
    this.deleteRequest = deleteRequest;
    this.time = time;
    this.owner = owner;
    this.maximum = maximum;
  }

  /** {@code c}'s Install gave a grant for {@code validity}: its request state stands behind it. */
  void granted(ProxiedConnection c, Duration validity) {
    if (c.endSeen) {
      return; // ended (and its request state deleted) while its Install was on the way
    }
    Key k = new Key(c.subject, c.scope);
    if ((byHandle.size() >= maximum || perSubject.getOrDefault(c.subject, 0) >= PER_SUBJECT)
        && !byKey.containsKey(k)) {
      return; // full: this grant is not reused (its connections are asked for)
    }
    Anchor old = byKey.get(k);
    if (old != null) {
      retire(old); // replaced: new connections stand on the newer request
    }
    Anchor a = new Anchor(c.handle, k, time.nanoTime() + validity.toNanos());
    byKey.put(k, a);
    byHandle.put(c.handle, a);
    perSubject.merge(c.subject, 1, Integer::sum);
  }

  /**
   * Admits {@code c} on its subject's live grant on its listener: true, and {@code c} stands on
   * that grant's request state until it ends ({@link #left}); false if there is none (or it has
   * just expired, and stops admitting here).
   */
  boolean admit(ProxiedConnection c) {
    Anchor a = byKey.get(new Key(c.subject, c.scope));
    if (a == null) {
      return false;
    }
    if (time.nanoTime() - a.expiresAt >= 0) {
      retire(a);
      return false;
    }
    a.dependents++;
    c.anchor = a;
    c.grant = a.handle; // for its audit record
    return true;
  }

  /**
   * {@code c}, admitted on a grant, has ended: the grant's request state may go if nothing else
   * stands on it.
   */
  void left(ProxiedConnection c) {
    Anchor a = c.anchor;
    if (a == null) {
      return;
    }
    c.anchor = null;
    a.dependents--;
    release(a);
  }

  /**
   * {@code c} has ended: true if its request state stands behind a grant, live or with connections
   * admitted on it, which keeps it (the caller deletes nothing) until nothing stands on it; false
   * if the caller deletes it as usual.
   */
  boolean park(ProxiedConnection c) {
    c.endSeen = true; // an Install still on its way anchors nothing now (granted)
    Anchor a = byHandle.get(c.handle);
    if (a == null) {
      return false;
    }
    long left = a.expiresAt - time.nanoTime();
    if (a.live && left <= 0) {
      retire(a); // not parked: nothing to delete here
    }
    if (!a.live && a.dependents == 0) {
      let(a);
      return false; // the caller deletes it
    }
    a.parked = true;
    if (left > 0) {
      expireIn(a, left);
    }
    return true;
  }

  private void expireIn(Anchor a, long nanos) {
    try {
      time.schedule(owner, () -> expired(a), nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopping) {
      // the proxy is stopping: its PEP's Client-Close ends every request state
    }
  }

  private void expired(Anchor a) {
    if (byHandle.get(a.handle) != a) {
      return; // gone meanwhile
    }
    long left = a.live ? a.expiresAt - time.nanoTime() : 0;
    if (left > 0) {
      expireIn(a, left); // a changed Install gave it longer
    } else {
      retire(a);
    }
  }

  /**
   * The PDP changed the Install of {@code handle} and still grants (a reload, another member's
   * decision): if it stands behind a grant, that grant now lasts {@code validity} from now, or
   * admits no more when the new decision gives none. Grants never outlive the decision they stand
   * on: a validity shortened to 2 s was still reused 4.5 s later. Returns the grant's key, or null
   * if {@code handle} stands behind none.
   */
  Key regranted(String handle, Duration validity) {
    Anchor a = byHandle.get(handle);
    if (a == null) {
      return null;
    }
    if (validity == null) {
      retire(a);
    } else if (a.live) {
      a.expiresAt = time.nanoTime() + validity.toNanos();
    }
    return a.key;
  }

  /**
   * The PDP removed {@code handle}: if it was an anchor it is forgotten, and its subject is
   * returned (the caller revokes by subject: what stood on the grant goes with it, whether or not
   * the anchor's own connection is still there); else null.
   */
  String removed(String handle) {
    Anchor a = byHandle.get(handle);
    if (a == null) {
      return null;
    }
    forget(a);
    return a.key.subject();
  }

  /** Every anchor of {@code subject} is forgotten (its grants were revoked; the caller cuts). */
  void revoke(String subject) {
    for (Anchor a : List.copyOf(byHandle.values())) {
      if (a.key.subject().equals(subject)) {
        forget(a);
      }
    }
  }

  /**
   * A later request of {@code subject} in {@code scope} was denied: its grant there admits no more;
   * its request state stays while connections admitted on it are open.
   */
  void revoke(String subject, String scope) {
    Anchor a = byKey.get(new Key(subject, scope));
    if (a != null) {
      retire(a);
    }
  }

  /** Request states kept now (tests, and the size a proxy's grants keep at the PDP). */
  int size() {
    return byHandle.size();
  }

  /** Request states kept now with no connection of their own. */
  int parked() {
    return (int) byHandle.values().stream().filter(a -> a.parked).count();
  }

  /** {@code a} admits no more; its request state goes now if nothing stands on it. */
  private void retire(Anchor a) {
    if (a.live) {
      a.live = false;
      byKey.remove(a.key, a);
    }
    release(a);
  }

  /** Deletes {@code a}'s request state if it no longer admits and nothing stands on it. */
  private void release(Anchor a) {
    if (!a.live && a.parked && a.dependents == 0 && let(a)) {
      deleteRequest.accept(a.handle);
    }
  }

  /** {@code a} is gone at once (a Remove, its subject revoked); deleted if parked. */
  private void forget(Anchor a) {
    a.live = false;
    byKey.remove(a.key, a);
    if (let(a) && a.parked) {
      deleteRequest.accept(a.handle);
    }
  }

  /** Forgets {@code a}'s request state here: true if it was kept. */
  private boolean let(Anchor a) {
    if (!byHandle.remove(a.handle, a)) {
      return false;
    }
    perSubject.computeIfPresent(a.key.subject(), (s, n) -> n <= 1 ? null : n - 1);
    return true;
  }

  /**
   * The PDP refused a request for lack of room (error 4: its max-handles, counting the request
   * states this PEP keeps behind grants): the oldest grant nothing stands on gives its request
   * state back (DRQ, before the caller asks again), so that holding grants never makes the PDP
   * refuse anyone while one of them is idle. False if every kept request state carries a
   * connection. A hostile tester's 1,200 subjects, with the PDP at max-handles 1,000, left 201
   * denied and then everyone without a live grant.
   */
  boolean yieldIdle() {
    for (Anchor a : byHandle.values()) {
      if (a.parked && a.dependents == 0) {
        forget(a);
        return true;
      }
    }
    return false;
  }
}
