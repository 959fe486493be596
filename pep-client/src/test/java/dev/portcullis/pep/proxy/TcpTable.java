package dev.portcullis.pep.proxy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the kernel says of a TCP connection on this host (Linux's {@code /proc/net/tcp} and {@code
 * tcp6}, proc(5)): lets a test wait for the proxy's end of a connection to be gone, the event it
 * cares about, instead of sleeping for long enough.
 */
final class TcpTable {
  private static final String ESTABLISHED = "01";

  private TcpTable() {}

  /**
   * Whether a socket with local port {@code local} and remote port {@code remote} is ESTABLISHED
   * (the ports are those of one end; an abortive close takes that end out of the table at once).
   */
  static boolean established(int local, int remote) {
    return established(Path.of("/proc/net/tcp"), local, remote)
        || established(Path.of("/proc/net/tcp6"), local, remote);
  }

  private static boolean established(Path table, int local, int remote) {
    List<String> lines;
    try {
      lines = Files.readAllLines(table);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + table + " (Linux only)", e);
    }
    for (String line : lines.subList(1, lines.size())) {
      // "  sl  local_address rem_address   st ...", addresses as HEXIP:HEXPORT
      String[] f = line.trim().split("\\s+");
      if (f.length > 3 && f[3].equals(ESTABLISHED) && port(f[1]) == local && port(f[2]) == remote) {
        return true;
      }
    }
    return false;
  }

  private static int port(String address) {
    return Integer.parseInt(address.substring(address.indexOf(':') + 1), 16);
  }
}
