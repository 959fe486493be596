package dev.portcullis.netfilter;

import java.io.IOException;
import java.net.Inet4Address;
import java.util.List;

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
    return deleteAll(List.of(flow)) == 1;
  }

  /**
   * Deletes the conntrack entries of {@code flows} on one netlink handle (a revocation ends a
   * grant's flows together), in the calling thread's network namespace.
   *
   * @return how many there were (the others had none)
   * @throws IOException naming the first flow the kernel refused (not root, say); the others are
   *     deleted all the same
   */
  public static int deleteAll(List<Flow> flows) throws IOException {
    NetfilterNative.ensure();
    byte[] b = new byte[13 * flows.size()];
    for (int i = 0; i < flows.size(); i++) {
      Flow f = flows.get(i);
      if (!(f.source() instanceof Inet4Address) || !(f.destination() instanceof Inet4Address)) {
        throw new IOException("conntrack: " + f + ": IPv4 only for now");
      }
      int o = 13 * i;
      System.arraycopy(f.source().getAddress(), 0, b, o, 4);
      System.arraycopy(f.destination().getAddress(), 0, b, o + 4, 4);
      b[o + 8] = (byte) f.protocol();
      b[o + 9] = (byte) (f.sourcePort() >> 8);
      b[o + 10] = (byte) f.sourcePort();
      b[o + 11] = (byte) (f.destinationPort() >> 8);
      b[o + 12] = (byte) f.destinationPort();
    }
    int[] errnos = NetfilterNative.conntrackDelete(b, flows.size());
    if (errnos == null) {
      throw new IOException("conntrack: out of memory deleting " + flows.size() + " entries");
    }
    int deleted = 0;
    IOException first = null;
    for (int i = 0; i < errnos.length; i++) {
      if (errnos[i] == 0) {
        deleted++;
      } else if (errnos[i] != ENOENT && first == null) {
        first =
            new IOException("conntrack: cannot delete " + flows.get(i) + ": errno " + errnos[i]);
      }
    }
    if (first != null) {
      throw first;
    }
    return deleted;
  }
}
