package dev.portcullis.nativecrypto;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A native context owned by one Java object: freed by {@link #close} (once, however often it is
 * called) or, if forgotten, by a {@link Cleaner}; never freed twice. Not thread-safe: one thread at
 * a time per instance; distinct instances may be used by distinct threads at once.
 */
abstract class NativeHandle implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  /** Owns the pointer; what the cleaner runs. Must not refer to the handle. */
  private static final class Context implements Runnable {
    final AtomicLong ptr;
    final LongConsumer free;

    Context(long ptr, LongConsumer free) {
      this.ptr = new AtomicLong(ptr);
      this.free = free;
    }

    @Override
    public void run() {
      long p = ptr.getAndSet(0);
      if (p != 0) {
        free.accept(p);
      }
    }
  }

  private final Context context;
  private final Cleaner.Cleanable cleanable;

  NativeHandle(long ptr, LongConsumer free) {
    this.context = new Context(ptr, free);
    this.cleanable = CLEANER.register(this, context);
  }

  /** The native pointer; throws once closed. */
  final long ptr() {
    long p = context.ptr.get();
    if (p == 0) {
      throw new IllegalStateException(getClass().getSimpleName() + " closed");
    }
    return p;
  }

  /** Takes bytes from an array range. */
  interface ArraySink {
    void update(byte[] in, int off, int len);
  }

  /** Takes bytes from a direct buffer, by address. */
  interface DirectSink {
    void update(ByteBuffer in, int pos, int len);
  }

  /**
   * Feeds the remaining bytes of {@code in} — direct by address, heap by its array, read-only by a
   * copy — and moves its position to its limit.
   */
  static void feed(ByteBuffer in, ArraySink array, DirectSink direct) {
    int pos = in.position();
    int len = in.remaining();
    if (in.isDirect()) {
      direct.update(in, pos, len);
    } else if (in.hasArray()) {
      array.update(in.array(), in.arrayOffset() + pos, len);
    } else {
      byte[] b = new byte[len];
      in.duplicate().get(b);
      array.update(b, 0, len);
    }
    in.position(pos + len);
  }

  @Override
  public final void close() {
    cleanable.clean();
  }
}
