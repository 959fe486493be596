package dev.portcullis.support;

import java.net.InetSocketAddress;

/** Socket addresses as people write them: {@code 127.0.0.1:8080}, {@code [::1]:8080}. */
public final class HostPort {
  private HostPort() {}

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
