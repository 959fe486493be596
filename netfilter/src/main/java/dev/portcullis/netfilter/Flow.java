package dev.portcullis.netfilter;

import java.net.InetAddress;

/**
 * A flow as its first packet names it: source and destination address and port, and the IP protocol
 * (6 TCP, 17 UDP).
 */
public record Flow(
    InetAddress source,
    int sourcePort,
    InetAddress destination,
    int destinationPort,
    int protocol) {
  public static final int TCP = 6;
  public static final int UDP = 17;

  @Override
  public String toString() {
    return (protocol == TCP ? "tcp " : protocol == UDP ? "udp " : "proto " + protocol + " ")
        + source.getHostAddress()
        + ":"
        + sourcePort
        + " > "
        + destination.getHostAddress()
        + ":"
        + destinationPort;
  }
}
