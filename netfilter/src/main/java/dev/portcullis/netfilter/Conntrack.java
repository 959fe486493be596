package dev.portcullis.netfilter;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

/** The kernel's connection tracking, through libnetfilter_conntrack: what a revocation removes. */
public final class Conntrack {
  private static final int ENOENT = 2;

  /**
   * A flow as the native side passes it: source and destination address (4 bytes each, network
   * order), the protocol, source and destination port (2 bytes each, big-endian).
   */
  static final int TUPLE = 13;

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
   * The IPv4 flows whose conntrack entry's mark has every bit of {@code mark}, in the calling
   * thread's network namespace (the kernel filters its dump by the mark).
   *
   * @throws IOException with the errno when the kernel refused (not root, say)
   */
  public static List<Flow> marked(int mark) throws IOException {
    NetfilterNative.ensure();
    byte[] b = NetfilterNative.conntrackMarked(mark);
    return flows(b, b.length / TUPLE);
  }

  /** The first {@code count} flows of {@code b}, {@link #TUPLE} bytes each. */
  static List<Flow> flows(byte[] b, int count) {
    List<Flow> out = new java.util.ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int o = TUPLE * i;
      try {
        out.add(
            new Flow(
                InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, o, o + 4)),
                (b[o + 9] & 0xff) << 8 | (b[o + 10] & 0xff),
                InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, o + 4, o + 8)),
                (b[o + 11] & 0xff) << 8 | (b[o + 12] & 0xff),
                b[o + 8] & 0xff));
      } catch (java.net.UnknownHostException e) {
        throw new AssertionError(e); // four bytes always make an address
      }
    }
    return out;
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
    byte[] b = new byte[TUPLE * flows.size()];
    for (int i = 0; i < flows.size(); i++) {
      Flow f = flows.get(i);
      if (!(f.source() instanceof Inet4Address) || !(f.destination() instanceof Inet4Address)) {
        throw new IOException("conntrack: " + f + ": IPv4 only for now");
      }
      int o = TUPLE * i;
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
