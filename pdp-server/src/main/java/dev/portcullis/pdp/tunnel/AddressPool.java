package dev.portcullis.pdp.tunnel;

import dev.portcullis.cops.access.TrafficSelector;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The address a rule's pool gives a new tunnel's client (the policy's {@code pool=}): the lowest of
 * the pool that no live tunnel to the same gateway carries. As charon's own pools do, a pool of
 * more than two addresses keeps its first and its last (a network's own and its broadcast address).
 * One pass over the gateway's live tunnels and as many steps as there are taken addresses below the
 * one chosen: no table of leases to keep beside the tunnels themselves.
 */
final class AddressPool {
  private AddressPool() {}

  /**
   * The lowest address of {@code pool} (as a host prefix) that none of {@code taken} (the inner
   * prefixes of the gateway's live tunnels) covers; null when every address is taken.
   */
  static TrafficSelector pick(TrafficSelector pool, Collection<TrafficSelector> taken) {
    int bits = pool.address().getAddress().length * 8;
    BigInteger first = number(pool.address());
    BigInteger last =
        first.add(BigInteger.ONE.shiftLeft(bits - pool.prefixLength())).subtract(BigInteger.ONE);
    if (last.subtract(first).compareTo(BigInteger.ONE) > 0) {
      first = first.add(BigInteger.ONE); // more than two: not the network's own address
      last = last.subtract(BigInteger.ONE); // nor its broadcast
    }
    Set<BigInteger> hosts = new HashSet<>();
    List<BigInteger[]> ranges = new ArrayList<>();
    for (TrafficSelector t : taken) {
      if (!pool.overlaps(t)) {
        continue;
      }
      BigInteger lo = number(t.address());
      if (t.isHost()) {
        hosts.add(lo);
      } else {
        BigInteger size = BigInteger.ONE.shiftLeft(bits - t.prefixLength());
        ranges.add(new BigInteger[] {lo, lo.add(size).subtract(BigInteger.ONE)});
      }
    }
    BigInteger a = first;
    while (a.compareTo(last) <= 0) {
      BigInteger next = a;
      if (hosts.contains(a)) {
        next = a.add(BigInteger.ONE);
      } else {
        for (BigInteger[] r : ranges) {
          if (a.compareTo(r[0]) >= 0 && a.compareTo(r[1]) <= 0) {
            next = r[1].add(BigInteger.ONE);
            break;
          }
        }
      }
      if (next.equals(a)) {
        return new TrafficSelector(address(a, bits / 8), bits);
      }
      a = next;
    }
    return null;
  }

  private static BigInteger number(InetAddress a) {
    return new BigInteger(1, a.getAddress());
  }

  private static InetAddress address(BigInteger n, int bytes) {
    byte[] raw = n.toByteArray();
    byte[] out = new byte[bytes];
    int copy = Math.min(raw.length, bytes);
    System.arraycopy(raw, raw.length - copy, out, bytes - copy, copy);
    try {
      return InetAddress.getByAddress(out);
    } catch (UnknownHostException e) {
      throw new IllegalStateException("4 or 16 bytes make an address", e);
    }
  }
}
