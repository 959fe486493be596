package dev.portcullis.pdp.tunnel;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.support.pki.TunnelCertificates;
import java.security.GeneralSecurityException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The one-time public keys each gateway's agent sent ahead (docs/tunnels.md): a gateway asks for no
 * tunnel itself, so it cannot send a key with each one; its standing request carries several, each
 * certified for one tunnel and never again, and each of its reports on a new tunnel brings a fresh
 * one. A client's request that finds none ready waits here, in order, for the next to arrive (the
 * desk bounds how long). Confined to the desk's thread: no locks.
 *
 * @param <W> a request waiting for a key
 */
final class GatewayKeys<W> {
  /** The most requests that wait for one gateway's keys at once. */
  static final int MAX_WAITING = 1024;

  private final Map<String, ArrayDeque<Bytes>> keys = new HashMap<>();
  private final Map<String, ArrayDeque<W>> waiting = new HashMap<>();

  /**
   * Gateway {@code gateway}'s agent stands by (anew) offering {@code offered}: those that are keys
   * charon can sign with replace the ones it offered before (its agent made new ones: the old
   * private keys are gone). Returns null, or why some were refused.
   */
  String offered(String gateway, List<Bytes> offered) {
    ArrayDeque<Bytes> pool = new ArrayDeque<>();
    keys.put(gateway, pool);
    String refused = null;
    for (Bytes k : offered) {
      String why = add(pool, k);
      if (why != null) {
        refused = why;
      }
    }
    return refused;
  }

  /** A fresh key from {@code gateway}'s agent; null, or why it was refused. */
  String fresh(String gateway, Bytes key) {
    return add(keys.computeIfAbsent(gateway, g -> new ArrayDeque<>()), key);
  }

  private static String add(ArrayDeque<Bytes> pool, Bytes key) {
    if (pool.size() >= TunnelRequest.MAX_PUBLIC_KEYS) {
      return "more than " + TunnelRequest.MAX_PUBLIC_KEYS + " keys ready: the rest is ignored";
    }
    try {
      TunnelCertificates.keyType(key.toArray());
    } catch (GeneralSecurityException e) {
      return e.getMessage();
    }
    if (pool.contains(key)) {
      return "a key it offered already (each is certified once)";
    }
    pool.add(key);
    return null;
  }

  /** A key of {@code gateway}'s to certify, now taken; or null when none is ready. */
  Bytes take(String gateway) {
    ArrayDeque<Bytes> pool = keys.get(gateway);
    return pool == null ? null : pool.poll();
  }

  /** How many of {@code gateway}'s keys are ready. */
  int ready(String gateway) {
    ArrayDeque<Bytes> pool = keys.get(gateway);
    return pool == null ? 0 : pool.size();
  }

  /** {@code w} waits for one of {@code gateway}'s keys; false when too many wait already. */
  boolean await(String gateway, W w) {
    ArrayDeque<W> q = waiting.computeIfAbsent(gateway, g -> new ArrayDeque<>());
    if (q.size() >= MAX_WAITING) {
      return false;
    }
    q.add(w);
    return true;
  }

  /** How many wait for {@code gateway}'s keys. */
  int waiting(String gateway) {
    ArrayDeque<W> q = waiting.get(gateway);
    return q == null ? 0 : q.size();
  }

  /** The next request waiting for {@code gateway}'s keys while one is ready; else null. */
  W next(String gateway) {
    ArrayDeque<W> q = waiting.get(gateway);
    return q == null || ready(gateway) == 0 ? null : q.poll();
  }

  /** Takes {@code w} out of the waiting (its time is up, its client left); false if not there. */
  boolean remove(String gateway, W w) {
    ArrayDeque<W> q = waiting.get(gateway);
    return q != null && q.remove(w);
  }

  /** The waiting requests {@code which} selects, taken out. */
  List<W> removeWhere(Predicate<W> which) {
    List<W> out = new java.util.ArrayList<>();
    for (ArrayDeque<W> q : waiting.values()) {
      q.removeIf(
          w -> {
            if (which.test(w)) {
              out.add(w);
              return true;
            }
            return false;
          });
    }
    return out;
  }
}
