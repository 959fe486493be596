package dev.portcullis.pep.proxy;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The request states behind the grants a listener reuses ({@code grants="reuse"},
 * docs/pep-proxy.md): per subject and listener, the handle whose Install gave the grant. A reused
 * grant admits its subject's new connections without a request each, so the PDP must still hold
 * something it can take back: the anchor's request state stays installed, after its own connection
 * has ended too (its DRQ waits, "parked", until the grant ends), and a policy change or revocation
 * reaches it as a Remove like any other, which cuts what was admitted on it ({@link
 * ProxyRevocations}). Without an anchor there is no reuse: a connection is then asked for.
 *
 * <p>An anchor ends when its grant's validity runs out (by the ticker grants expire by), when a
 * later Install of the same subject and listener replaces it, when a Remove or a denial ends its
 * grant, or when its subject is revoked; a parked anchor's request state is deleted (DRQ) then. One
 * lock: taken once per new connection on a reusing listener and per grant, never across I/O.
 */
final class GrantAnchors {
  private record Key(String subject, String listener) {}

  private static final class Anchor {
    final String handle;
    final Key key;
    final long expiresAt; // by the ticker
    boolean parked; // its connection has ended; its request state is kept for the grant

    Anchor(String handle, Key key, long expiresAt) {
      this.handle = handle;
      this.key = key;
      this.expiresAt = expiresAt;
    }
  }

  private final Map<Key, Anchor> byKey = new HashMap<>();
  private final Map<String, Anchor> byHandle = new HashMap<>();
  private final Consumer<String> deleteRequest;
  private final Ticker ticker;
  private final int maximum;

  /**
   * @param deleteRequest deletes a request state at the PDP (DRQ), given its handle
   * @param ticker the time source grants expire by
   * @param maximum anchors kept at most (each is a request state at the PDP); a grant beyond them
   *     is not reused, its subject's connections are asked for as without reuse
   */
  GrantAnchors(Consumer<String> deleteRequest, Ticker ticker, int maximum) {
    this.deleteRequest = deleteRequest;
    this.ticker = ticker;
    this.maximum = maximum;
  }

  /** {@code c}'s Install gave a grant for {@code validity}: its request state stands behind it. */
  void granted(ProxiedConnection c, Duration validity) {
    List<String> drop = new ArrayList<>(1);
    synchronized (this) {
      if (c.endSeen) {
        return; // ended (and its request state deleted) while its Install was on the way
      }
      Key k = new Key(c.subject, c.listener.name());
      if (byHandle.size() >= maximum && !byKey.containsKey(k)) {
        return; // full: this grant is not reused (its connections are asked for)
      }
      Anchor a = new Anchor(c.handle, k, ticker.read() + validity.toNanos());
      Anchor old = byKey.put(k, a);
      if (old != null) {
        retire(old, drop); // replaced: the newer grant stands on the newer request
      }
      byHandle.put(c.handle, a);
    }
    delete(drop);
  }

  /**
   * True if a grant of {@code subject} on {@code listener} stands on a request state the PDP holds
   * and has not expired: a new connection may be admitted on it.
   */
  boolean admits(String subject, String listener) {
    List<String> drop = new ArrayList<>(1);
    boolean live;
    synchronized (this) {
      Anchor a = byKey.get(new Key(subject, listener));
      live = a != null && ticker.read() - a.expiresAt < 0;
      if (a != null && !live) {
        retire(a, drop);
      }
    }
    delete(drop);
    return live;
  }

  /**
   * {@code c} has ended: true if its request state stands behind a live grant, which keeps it (the
   * caller deletes nothing) until the grant ends; false if the caller deletes it as usual.
   */
  boolean park(ProxiedConnection c) {
    long left;
    Anchor a;
    synchronized (this) {
      c.endSeen = true; // an Install still on its way anchors nothing now (granted)
      a = byHandle.get(c.handle);
      if (a == null) {
        return false;
      }
      left = a.expiresAt - ticker.read();
      if (left <= 0) {
        retire(a, new ArrayList<>(0)); // the caller deletes it
        return false;
      }
      a.parked = true;
    }
    Anchor parked = a;
    try {
      c.client.eventLoop().schedule(() -> expired(parked), left, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopping) {
      // the proxy is stopping: its PEP's Client-Close ends every request state
    }
    return true;
  }

  private void expired(Anchor a) {
    List<String> drop = new ArrayList<>(1);
    synchronized (this) {
      if (byHandle.get(a.handle) == a) {
        retire(a, drop);
      }
    }
    delete(drop);
  }

  /**
   * The PDP removed {@code handle}: if it was an anchor its grant is gone, and its subject is
   * returned (the caller revokes by subject: what was admitted on the grant goes with it, whether
   * or not the anchor's own connection is still there); else null.
   */
  String removed(String handle) {
    List<String> drop = new ArrayList<>(1);
    String subject = null;
    synchronized (this) {
      Anchor a = byHandle.get(handle);
      if (a != null) {
        subject = a.key.subject();
        retire(a, drop);
      }
    }
    delete(drop);
    return subject;
  }

  /** Every anchor of {@code subject} ends (its grants were revoked). */
  void revoke(String subject) {
    List<String> drop = new ArrayList<>();
    synchronized (this) {
      for (Anchor a : List.copyOf(byKey.values())) {
        if (a.key.subject().equals(subject)) {
          retire(a, drop);
        }
      }
    }
    delete(drop);
  }

  /** The anchor of {@code subject} on {@code listener} ends (a later request there was denied). */
  void revoke(String subject, String listener) {
    List<String> drop = new ArrayList<>(1);
    synchronized (this) {
      Anchor a = byKey.get(new Key(subject, listener));
      if (a != null) {
        retire(a, drop);
      }
    }
    delete(drop);
  }

  /** Anchors held now (tests, and the size a proxy's grants keep at the PDP). */
  synchronized int size() {
    return byHandle.size();
  }

  /** Parked anchors held now: request states kept at the PDP with no connection of their own. */
  synchronized int parked() {
    return (int) byHandle.values().stream().filter(a -> a.parked).count();
  }

  private void retire(Anchor a, List<String> drop) {
    byHandle.remove(a.handle, a);
    byKey.remove(a.key, a);
    if (a.parked) {
      drop.add(a.handle); // its connection ended without deleting it: deleted now
    }
  }

  /** DRQs outside the lock (the PEP client queues them on its own loop). */
  private void delete(List<String> handles) {
    for (String h : handles) {
      deleteRequest.accept(h);
    }
  }
}
