package dev.portcullis.active.router;

import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.packet.PacketView;
import java.net.InetSocketAddress;
import java.util.List;

/** A router's static routes: the first whose prefix holds the packet's destination wins. */
final class RouteTable {
  private final List<RosaConfig.Route> routes;

  RouteTable(List<RosaConfig.Route> routes) {
    this.routes = List.copyOf(routes);
  }

  /** The next hop for {@code p}'s destination, or null if no route holds it. No allocation. */
  InetSocketAddress nextHop(PacketView p) {
    boolean v6 = p.ipv6();
    long hi = p.destinationHigh();
    long lo = p.destinationLow();
    for (RosaConfig.Route r : routes) {
      if (r.destination().contains(v6, hi, lo)) {
        return r.nextHop();
      }
    }
    return null;
  }

  int size() {
    return routes.size();
  }
}
