package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Ready, keyed engines ({@code Mac}, {@code Cipher}, ...) for one handle, so the hot path never
 * calls {@code getInstance} or redoes a key schedule.
 *
 * <p>Engines sit in a small array of slots indexed by thread id: a thread takes the engine out of
 * its slot (an atomic swap, no lock, no allocation), uses it, and puts it back. Each engine
 * remembers the provider it came from; when the registry publishes a table that moves the algorithm
 * to another provider, the next {@link #acquire()} drops the stale engine and makes a fresh one. An
 * operation that already holds an engine finishes on it: that is how work in flight completes on
 * the old table while new work uses the new one.
 *
 * <p>The handles spell out acquire / try / release-or-discard in each operation instead of passing
 * a lambda here: a lambda capturing the operation's arguments is an allocation per packet unless
 * escape analysis happens to remove it, and the hot path must not depend on that.
 *
 * <p>Why slots and not a {@code ThreadLocal}: a session-key cache may hold many thousands of
 * handles, and per-handle {@code ThreadLocal}s leave entries in every thread's map until a GC finds
 * them; slots go away with the handle and bound the engines per handle.
 */
abstract class EnginePool<E> {
  private static final int SLOTS =
      Integer.highestOneBit(Math.max(8, Runtime.getRuntime().availableProcessors() * 4) - 1) << 1;

  /** An engine together with the provider it came from. */
  static final class Slot<E> {
    final E engine;
    final Provider provider;
    final String providerName;
    final LongAdder operations;
    final int index;

    Slot(E engine, Selection from, int index) {
      this.engine = engine;
      this.provider = from.provider();
      this.providerName = from.providerName();
      this.operations = from.operations();
      this.index = index;
    }
  }

  final Algorithm algorithm;
  private final Supplier<ProviderTable> tables;
  private final AtomicReferenceArray<Slot<E>> slots = new AtomicReferenceArray<>(SLOTS);
  private volatile boolean closed;

  EnginePool(Algorithm algorithm, Supplier<ProviderTable> tables) {
    this.algorithm = algorithm;
    this.tables = tables;
  }

  /** Makes a new engine, keyed where the handle has a key. */
  abstract E create(Selection selection) throws GeneralSecurityException;

  /** Releases an engine that leaves the pool. */
  void dispose(E engine) {}

  /** The selection new work would use now. */
  final Selection current() {
    return tables.get().selection(algorithm);
  }

  final Slot<E> acquire() {
    if (closed) {
      throw new IllegalStateException(algorithm + " handle used after destroy()");
    }
    Selection sel = current();
    int i = index();
    Slot<E> s = slots.getAndSet(i, null);
    if (s == null) {
      // Another thread sharing the slot has the engine: try the neighbour before making one.
      i = (i + 1) & (SLOTS - 1);
      s = slots.getAndSet(i, null);
    }
    if (s != null && s.provider == sel.provider()) {
      return s;
    }
    if (s != null) {
      dispose(s.engine);
    }
    try {
      return new Slot<>(create(sel), sel, i);
    } catch (GeneralSecurityException e) {
      // The provider passed its known-answer tests with the same algorithm, so this is about
      // the caller's key or parameters; say which provider refused and why, without the key.
      throw new IllegalArgumentException(
          algorithm + " via " + sel.providerName() + ": " + e.getMessage(), e);
    }
  }

  /** Returns an engine after a successful operation. */
  final void release(Slot<E> s) {
    s.operations.increment();
    if (closed || !slots.compareAndSet(s.index, null, s)) {
      dispose(s.engine);
    }
  }

  /** Drops an engine whose operation failed: its state is unknown, so it is not reused. */
  final void discard(Slot<E> s) {
    dispose(s.engine);
  }

  final void close() {
    closed = true;
    for (int i = 0; i < SLOTS; i++) {
      Slot<E> s = slots.getAndSet(i, null);
      if (s != null) {
        dispose(s.engine);
      }
    }
  }

  final boolean closed() {
    return closed;
  }

  // Thread.threadId() would be the modern spelling, but it is JDK 19+ and we target 17.
  private static int index() {
    long id = Thread.currentThread().getId();
    return (int) (id ^ (id >>> 16)) & (SLOTS - 1);
  }
}
