package dev.portcullis.netfilter;

import java.io.IOException;
import java.net.Inet4Address;

/** The kernel's connection tracking, through libnetfilter_conntrack: what a revocation removes. */
public final class Conntrack {
  private static final int ENOENT = 2;

  private Conntrack() {}

  /**
   * Deletes {@code flow}'s conntrack entry (its original direction), in the calling thread's
   * network namespace, so the flow's next packet is a new flow to the rules.
   *
   * @return false when there was none
   * @throws IOException with the errno when the kernel refused (not root, say)
   */
  public static boolean delete(Flow flow) throws IOException {
    NetfilterNative.ensure();
    if (!(flow.source() instanceof Inet4Address) || !(flow.destination() instanceof Inet4Address)) {
      throw new IOException("conntrack: " + flow + ": IPv4 only for now");
    }
    int errno =
        NetfilterNative.conntrackDelete(
            flow.source().getAddress(),
            flow.destination().getAddress(),
            flow.protocol(),
            flow.sourcePort(),
            flow.destinationPort());
    if (errno == ENOENT) {
      return false;
    }
    if (errno != 0) {
      throw new IOException("conntrack: cannot delete " + flow + ": errno " + errno);
    }
    return true;
  }
}
