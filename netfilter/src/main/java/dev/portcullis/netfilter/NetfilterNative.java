package dev.portcullis.netfilter;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The native library ({@code src/main/c/portcullis_netfilter.c}) and its entry points: thin calls
 * into libnetfilter_queue, libnftables and libnetfilter_conntrack. Loaded from this jar ({@code
 * META-INF/native/linux-ARCH/}), copied to an owner-only temporary file for {@code System.load};
 * the build leaves it out where the libraries' headers are missing, and then {@link #unavailable}
 * says so. Callers check every length first.
 */
final class NetfilterNative {
  static final String LIBRARY = "portcullis_netfilter";
  private static final int ABI_VERSION = 4;
  private static final Throwable UNAVAILABLE = load();

  private NetfilterNative() {}

  /** Why the library cannot be used here, or null when it can. */
  static String unavailable() {
    return UNAVAILABLE == null ? null : UNAVAILABLE.getMessage();
  }

  static void ensure() throws IOException {
    if (UNAVAILABLE != null) {
      throw new IOException("the netfilter library cannot be used: " + UNAVAILABLE.getMessage());
    }
  }

  private static Throwable load() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String a = arch.equals("amd64") ? "x86_64" : arch.equals("aarch64") ? "aarch_64" : arch;
    String resource = "/META-INF/native/linux-" + a + "/lib" + LIBRARY + ".so";
    try (InputStream in = NetfilterNative.class.getResourceAsStream(resource)) {
      if (in == null) {
        return new UnsatisfiedLinkError(
            "lib"
                + LIBRARY
                + ".so is not in this build (Linux only, and built only where the headers of"
                + " libnetfilter-queue, libnetfilter-conntrack and libnftables were installed)");
      }
      // rw------- where POSIX, made new (never an existing file or a link), filled in place
      Path tmp = Files.createTempFile("lib" + LIBRARY, ".so");
      try {
        try (OutputStream out = Files.newOutputStream(tmp, LinkOption.NOFOLLOW_LINKS)) {
          in.transferTo(out);
        }
        System.load(tmp.toAbsolutePath().toString());
      } finally {
        Files.deleteIfExists(tmp); // a loaded library stays mapped
      }
      int v = abiVersion();
      return v == ABI_VERSION
          ? null
          : new UnsatisfiedLinkError(
              "lib"
                  + LIBRARY
                  + " is of another build (ABI "
                  + v
                  + ", expected "
                  + ABI_VERSION
                  + ")");
    } catch (IOException | LinkageError | SecurityException e) {
      return e;
    }
  }

  static native int abiVersion();

  /** Binds queue {@code number}; receives wait at most {@code timeoutMs}. */
  static native long queueOpen(int number, int maxLength, int timeoutMs) throws IOException;

  /**
   * The next packet: its id and mark (4 bytes each, big-endian) and its first bytes into {@code
   * into}; their count, 0 after a wait of {@code timeoutMs} with none (0: none waiting now) or one
   * a {@link #queueWakeup} ended or ({@code events}) conntrack events are waiting, -1 when the
   * kernel dropped packets for a reader behind.
   */
  static native int queueReceive(long queue, byte[] into, int timeoutMs, boolean events)
      throws IOException;

  /** Ends a {@link #queueReceive} wait at once; from any thread. */
  static native void queueWakeup(long queue);

  /** Packets dropped because one receive brought more than could be held: a count, then 0. */
  static native int queueOverflow(long queue);

  /** The verdict on packet {@code id}, setting its mark to {@code mark} (-1: left as it is). */
  static native void queueVerdict(long queue, int id, boolean accept, long mark) throws IOException;

  static native void queueClose(long queue);

  /**
   * Watches, on the queue's thread, conntrack's new-flow events of entries whose mark has every bit
   * of {@code mark} (the flows the kernel admits itself), the event socket's buffer {@code
   * bufferBytes}: {@link #queueEvents} reads them.
   */
  static native void queueWatch(long queue, int mark, int bufferBytes) throws IOException;

  /**
   * The flows {@link #queueWatch} saw since the last call (read from the event socket now, without
   * waiting), 13 bytes each; their count.
   */
  static native int queueEvents(long queue, byte[] into);

  /** Events lost since the last call (the kernel's socket full): a count, then 0. */
  static native int queueEventsLost(long queue);

  /** The IPv4 flows whose conntrack entry's mark has every bit of {@code mark}, 13 bytes each. */
  static native byte[] conntrackMarked(int mark) throws IOException;

  /** An nft context for many commands, its netlink socket in the calling thread's namespace. */
  static native long nftOpen() throws IOException;

  /** Runs nft commands on a context from {@link #nftOpen}; null, or nft's error text. */
  static native String nftRunOn(long context, String commands);

  static native void nftClose(long context);

  /** Runs nft commands; null when they succeeded, else nft's error text. */
  static native String nftRun(String commands) throws IOException;

  /**
   * Deletes the conntrack entries of {@code count} IPv4 flows, 13 bytes each in {@code flows}
   * (source, destination, protocol, source port, destination port) on one handle: each one's 0 or
   * errno (ENOENT: none).
   */
  static native int[] conntrackDelete(byte[] flows, int count);
}
