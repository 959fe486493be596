package dev.portcullis.nativecrypto;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Loads {@code libportcullis_native} and declares its entry points. Dependency-free on purpose (the
 * pattern of Netty's {@code Epoll} and Conscrypt's {@code NativeCryptoJni}): nothing here can fail
 * to load for a reason other than the library itself.
 *
 * <p>Where the library comes from, in order: turned off if the system property {@code
 * portcullis.native.disable} is {@code true}; {@code META-INF/native/<os>-<arch>/} in this jar,
 * extracted to {@code portcullis.native.dir} (default {@code java.io.tmpdir}; choose a directory
 * that allows execution where {@code /tmp} does not); else {@code System.loadLibrary} from {@code
 * java.library.path}. The library must report the {@link #ABI_VERSION} this class was built with.
 */
final class NativeCrypto {
  /** Must equal PORTCULLIS_NATIVE_ABI in portcullis_native.c. */
  static final int ABI_VERSION = 3;

  private static final String LIBRARY = "portcullis_native";
  private static final Throwable UNAVAILABILITY_CAUSE = load();

  private NativeCrypto() {}

  /** True if the native library is loaded and usable. */
  public static boolean isAvailable() {
    return UNAVAILABILITY_CAUSE == null;
  }

  /** Why the library is not usable, or null if it is. */
  public static Throwable unavailabilityCause() {
    return UNAVAILABILITY_CAUSE;
  }

  /** Throws, with the reason, unless the library is usable. */
  public static void ensureAvailability() {
    if (UNAVAILABILITY_CAUSE != null) {
      throw new UnsatisfiedLinkError(
          "the Portcullis native library is not available: " + UNAVAILABILITY_CAUSE);
    }
  }

  /** {@code linux-x86_64} and the like: the directory in the jar for this platform. */
  static String platform() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String o = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "osx" : os;
    String a =
        arch.equals("amd64") || arch.equals("x86_64")
            ? "x86_64"
            : arch.equals("aarch64") || arch.equals("arm64") ? "aarch_64" : arch;
    return o + "-" + a;
  }

  private static Throwable load() {
    if (Boolean.getBoolean("portcullis.native.disable")) {
      return new UnsupportedOperationException(
          "turned off by the system property portcullis.native.disable");
    }
    Throwable fromJar;
    try {
      fromJar = loadFromJar();
    } catch (Throwable t) {
      fromJar = t;
    }
    if (fromJar != null) {
      try {
        System.loadLibrary(LIBRARY);
      } catch (Throwable t) {
        UnsatisfiedLinkError e =
            new UnsatisfiedLinkError(
                "lib"
                    + LIBRARY
                    + ".so: not in the jar for "
                    + platform()
                    + " ("
                    + fromJar.getMessage()
                    + ") nor on java.library.path ("
                    + t.getMessage()
                    + ")");
        e.initCause(fromJar);
        return e;
      }
    }
    try {
      int v = abiVersion();
      if (v != ABI_VERSION) {
        return new UnsatisfiedLinkError(
            "lib"
                + LIBRARY
                + " is of another build (ABI "
                + v
                + ", this jar expects "
                + ABI_VERSION
                + "): use the library and jar of one release");
      }
    } catch (Throwable t) {
      return t;
    }
    return null;
  }

  /** Null when loaded; otherwise why not. */
  private static Throwable loadFromJar() throws IOException {
    String resource = "/META-INF/native/" + platform() + "/lib" + LIBRARY + ".so";
    try (InputStream in = NativeCrypto.class.getResourceAsStream(resource)) {
      if (in == null) {
        return new UnsatisfiedLinkError("no " + resource + " in the jar");
      }
      Path dir =
          Paths.get(
              System.getProperty("portcullis.native.dir", System.getProperty("java.io.tmpdir")));
      Files.createDirectories(dir);
      Path tmp = newPrivateFile(dir);
      try {
        try (OutputStream out = Files.newOutputStream(tmp, LinkOption.NOFOLLOW_LINKS)) {
          in.transferTo(out);
        }
        System.load(tmp.toAbsolutePath().toString());
      } finally {
        // Loaded libraries stay mapped; the file is not needed any more.
        Files.deleteIfExists(tmp);
      }
      return null;
    }
  }

  /**
   * A new, empty, owner-only file in {@code dir}, created exclusively (never an existing file or a
   * link). Not {@code Files.createTempFile}: that draws its name from {@code SecureRandom}, which
   * needs the security providers, and this runs while one is being constructed (PortcullisNative
   * listed first in a {@code java.security} file) — the JDK then reports "SHA-1 not available". The
   * name need not be secret: creation fails on any name that exists, and the next is tried.
   */
  private static Path newPrivateFile(Path dir) throws IOException {
    long pid = ProcessHandle.current().pid();
    boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    for (int attempt = 0; ; attempt++) {
      Path f =
          dir.resolve(
              "lib" + LIBRARY + "-" + pid + "-" + System.nanoTime() + "-" + attempt + ".so");
      try {
        return posix
            ? Files.createFile(
                f,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createFile(f);
      } catch (FileAlreadyExistsException e) {
        if (attempt == 99) {
          throw e;
        }
      }
    }
  }

  // ---- entry points (portcullis_native.c); callers check every index and length first ---------

  static native int abiVersion();

  /** setns(2) of the calling thread into the network namespace at {@code path}: 0 or errno. */
  static native int enterNetworkNamespace(String path);

  /** The OpenSSL version the library runs with. */
  public static native String openSslVersion();

  /** A keyed HMAC context; {@code alg}: 1 MD5, 2 SHA-1, 3 SHA-256, 4 SHA-384, 5 SHA-512. */
  static native long hmacNew(int alg, byte[] key);

  static native long hmacDup(long ctx);

  static native void hmacFree(long ctx);

  static native void hmacReset(long ctx);

  static native void hmacUpdate(long ctx, byte[] in, int off, int len);

  static native void hmacUpdateDirect(long ctx, ByteBuffer in, int pos, int len);

  static native int hmacFinal(long ctx, byte[] out, int outOff);

  static native int hmacOneShot(long ctx, byte[] in, int off, int len, byte[] out, int outOff);

  /**
   * A whole MAC over the {@code len} bytes at {@code staging} (a direct buffer's address, {@code
   * len + 64} bytes long), written over them from the start; the MAC's length. No JNI function is
   * called: nothing is pinned.
   */
  static native int hmacOneShotStaged(long ctx, long staging, int len);

  /** The most input {@link #hmacOneShotStaged} is used for. */
  static final int HMAC_STAGED = 1024;

  static native int hmacOneShotDirect(
      long ctx, ByteBuffer in, int pos, int len, byte[] out, int outOff);

  /** A digest context; {@code alg}: 3 SHA-256, 5 SHA-512. */
  static native long digestNew(int alg);

  static native long digestDup(long ctx);

  static native void digestFree(long ctx);

  static native void digestReset(long ctx);

  static native void digestUpdate(long ctx, byte[] in, int off, int len);

  static native void digestUpdateDirect(long ctx, ByteBuffer in, int pos, int len);

  static native int digestFinal(long ctx, byte[] out, int outOff);

  /** An AES context; {@code mode}: an {@link AesMode#code}. */
  static native long cipherNew(int mode, boolean encrypt, byte[] key, byte[] iv);

  static native void cipherFree(long ctx);

  /** A new IV, of the length the context was made with, keeping the key schedule. */
  static native boolean cipherRestart(long ctx, boolean encrypt, byte[] iv);

  static native boolean cipherAad(long ctx, byte[] in, int off, int len);

  /**
   * Room at {@code out[outOff]} for {@code len} bytes (GCM, CTR: they write exactly that) or {@code
   * len + 16} (CBC); bytes written, or -1.
   */
  static native int cipherUpdate(long ctx, byte[] in, int off, int len, byte[] out, int outOff);

  /** Room for 16 bytes at {@code out[outOff]}; bytes written, or -1 (padding or tag). */
  static native int cipherFinal(long ctx, byte[] out, int outOff);

  static native boolean cipherGetTag(long ctx, byte[] out, int outOff, int len);

  static native boolean cipherSetTag(long ctx, byte[] in, int off, int len);

  /** The address of a direct buffer's first byte (fetched once per buffer). */
  static native long bufferAddress(ByteBuffer direct);

  /**
   * GCM in one call. Sealing ({@code seal}): restarts {@code ctx} with the IV at {@code params}
   * (the address of a direct buffer, {@link #GCM_PARAMS} bytes; the IV, of the length {@code ctx}
   * was made with, at 0), authenticates {@code aadLen} bytes (from {@code aad}, or at {@code params
   * +}{@link #GCM_AAD_AT} when {@code aad} is null) and writes the ciphertext of {@code in[off,
   * off+len)} and then the tag ({@code tagLen} bytes) at {@code out[outOff]} ({@code out} null:
   * into {@code in}); bytes written, or -1. Opening: {@code in[off, off+len)} is the ciphertext and
   * the {@code tagLen} bytes after it the tag; returns {@code len}, or -1 when the tag does not
   * verify (and then the output range is zeroed).
   */
  static native int gcm(
      long ctx,
      boolean seal,
      long params,
      byte[] aad,
      int aadLen,
      byte[] in,
      int off,
      int len,
      byte[] out,
      int outOff,
      int tagLen);

  /**
   * {@link #gcm} with everything in the parameter buffer: the text ({@code len} bytes) at {@link
   * #GCM_TEXT_AT}, sealed or opened in place, the tag after it; no array is pinned.
   */
  static native int gcmStaged(long ctx, boolean seal, long params, int aadLen, int len, int tagLen);

  /** Where the text starts in the parameter buffer. */
  static final int GCM_TEXT_AT = 128 + 256;

  /** The most text the parameter buffer holds (with a 16-byte tag after it). */
  static final int GCM_STAGED_TEXT = 2048;

  /** Size of the parameter buffer of {@link #gcm} and {@link #gcmStaged}. */
  static final int GCM_PARAMS = GCM_TEXT_AT + GCM_STAGED_TEXT + 16;

  /** Where additional data starts in the parameter buffer (after room for a 128-byte IV). */
  static final int GCM_AAD_AT = 128;
}
