package dev.portcullis.nativecrypto;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Moves a thread into a Linux network namespace ({@code setns(2)}), which Java cannot do: the
 * benchmarks' network lab puts a PDP's listening socket in one namespace and its PEPs' sockets in
 * another, in one JVM. Only the calling thread moves; a socket keeps the namespace it was created
 * in, whichever thread uses it later. Needs root (CAP_SYS_ADMIN) and the native library.
 */
public final class NetworkNamespaces {
  private NetworkNamespaces() {}

  /** Why threads cannot be moved here, or null if they can. */
  public static String unavailable() {
    Throwable t = NativeCrypto.unavailabilityCause();
    return t == null ? null : "the Portcullis native library is not loaded: " + t.getMessage();
  }

  /**
   * Moves the calling thread into the namespace whose file is {@code file} ({@code /run/netns/NAME}
   * for one made by {@code ip netns add}).
   *
   * @throws IOException with the system's reason when it cannot
   */
  public static void enter(Path file) throws IOException {
    NativeCrypto.ensureAvailability();
    int errno = NativeCrypto.enterNetworkNamespace(file.toString());
    if (errno != 0) {
      throw new IOException(
          "cannot enter the network namespace " + file + ": errno " + errno + errno(errno));
    }
  }

  private static String errno(int e) {
    return switch (e) {
      case 1 -> " (EPERM: not root)";
      case 2 -> " (ENOENT: no such namespace)";
      case 22 -> " (EINVAL: not a network namespace)";
      default -> "";
    };
  }
}
