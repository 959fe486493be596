package dev.portcullis.support;

import java.net.InetSocketAddress;

/**
 * Socket addresses as people write them: {@code 127.0.0.1:8080}, {@code [::1]:8080}, {@code
 * pdp.example:3288}. The one reader of {@code HOST:PORT} for command lines and config files.
 */
public final class HostPort {
  private HostPort() {}

  /**
   * Reads {@code HOST:PORT} (an IPv6 literal in brackets) without looking the host up: an
   * unresolved address. Callers resolve, or insist on a literal, as their place requires.
   *
   * @throws IllegalArgumentException naming what is wrong: no port, a port that is not 0 to 65535,
   *     no host
   */
  public static InetSocketAddress parse(String s) {
    int colon = s == null ? -1 : s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException(s + " (expected: HOST:PORT)");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    } else if (host.indexOf(':') >= 0) {
      throw new IllegalArgumentException(
          s + " (expected: an IPv6 address in brackets, [::1]:PORT)");
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (host.isEmpty() || port < 0 || port > 0xFFFF) {
      throw new IllegalArgumentException(s + " (expected: HOST:PORT, the port 0 to 65535)");
    }
    return InetSocketAddress.createUnresolved(host, port);
  }

  /**
   * The literal address and port, IPv6 in brackets; an unresolved address keeps its host name; null
   * for null. ({@link InetSocketAddress#toString()} prints {@code /127.0.0.1:8080}.)
   */
  public static String of(InetSocketAddress a) {
    if (a == null) {
      return null;
    }
    String host = a.isUnresolved() ? a.getHostString() : a.getAddress().getHostAddress();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }
}
