package dev.portcullis.pep.firewall;

import dev.portcullis.netfilter.Flow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The {@code ss -K} commands that destroy this host's TCP sockets of ended flows ({@code
 * SOCK_DESTROY}: each connection reset). Each filter names a service (its address and port) and its
 * clients: by address where the flow's whole grant ends (every connection from there to the
 * service), else by address and port, so another grant's flows from the same address go on (before
 * 2026-11-29 the filter named addresses only, and reset them too).
 *
 * <p>Each {@code SOCK_DESTROY} is a netlink round trip of its own that resets its connection (60-70
 * us a socket on our 2-core VM), and one {@code ss} makes them one after another: from {@link
 * #SPLIT_AT} flows on, the sockets are shared between several commands to run at once, an address's
 * ports cut into ranges that together cover them all, named ports dealt in turn. A shell test here:
 * 1,000 sockets in 61-72 ms by one {@code ss}, 41 ms by two.
 */
final class SocketResets {
  /** Ended TCP flows from this many on are shared between commands. */
  static final int SPLIT_AT = 256;

  private SocketResets() {}

  /** A service's address and port, as {@code ss} names them. */
  private record Service(String address, int port) implements Comparable<Service> {
    @Override
    public int compareTo(Service o) {
      int c = address.compareTo(o.address);
      return c != 0 ? c : Integer.compare(port, o.port);
    }
  }

  /** One client address's ended flows to a service: their ports, and whether its grant ends. */
  private static final class Client {
    final List<Integer> ports = new ArrayList<>();
    boolean whole;
  }

  /**
   * The commands (each an argument list) for the TCP flows of {@code ended}: one, or from {@link
   * #SPLIT_AT} flows on up to {@code processes}; none when no flow is TCP.
   *
   * @param whole whether a flow's grant ends whole (its client's every connection to the service)
   */
  static List<List<String>> commands(List<Flow> ended, Predicate<Flow> whole, int processes) {
    Map<Service, Map<String, Client>> byService = new TreeMap<>();
    int tcp = 0;
    for (Flow f : ended) {
      if (f.protocol() == Flow.TCP) {
        Client c =
            byService
                .computeIfAbsent(
                    new Service(f.destination().getHostAddress(), f.destinationPort()),
                    k -> new TreeMap<>())
                .computeIfAbsent(f.source().getHostAddress(), k -> new Client());
        c.ports.add(f.sourcePort());
        c.whole |= whole.test(f);
        tcp++;
      }
    }
    int k = tcp < SPLIT_AT ? 1 : Math.max(1, processes);
    // each command's filter terms, per service
    List<Map<Service, List<List<String>>>> shares = new ArrayList<>(k);
    for (int i = 0; i < k; i++) {
      shares.add(new TreeMap<>());
    }
    int dealt = 0;
    for (Map.Entry<Service, Map<String, Client>> service : byService.entrySet()) {
      for (Map.Entry<String, Client> client : service.getValue().entrySet()) {
        String a = client.getKey();
        List<Integer> ps = client.getValue().ports;
        if (client.getValue().whole) {
          // every connection from the address: its ports cut into ranges that cover them all
          Collections.sort(ps);
          int parts = ps.size() < k ? 1 : k;
          for (int i = 0; i < parts; i++) {
            List<String> t = new ArrayList<>(List.of("(", "dst", a));
            if (i > 0) {
              t.addAll(List.of("and", "dport", ">=", ":" + ps.get(i * ps.size() / parts)));
            }
            if (i < parts - 1) {
              t.addAll(List.of("and", "dport", "<", ":" + ps.get((i + 1) * ps.size() / parts)));
            }
            t.add(")");
            shares.get(i).computeIfAbsent(service.getKey(), x -> new ArrayList<>()).add(t);
          }
        } else {
          for (int port : ps) {
            shares
                .get(dealt++ % k)
                .computeIfAbsent(service.getKey(), x -> new ArrayList<>())
                .add(List.of("dst", a + ":" + port));
          }
        }
      }
    }
    List<List<String>> commands = new ArrayList<>(k);
    for (Map<Service, List<List<String>>> share : shares) {
      if (!share.isEmpty()) {
        commands.add(command(share));
      }
    }
    return commands;
  }

  /** {@code ss -K -t} with a filter of each service's terms. */
  private static List<String> command(Map<Service, List<List<String>>> share) {
    List<String> c = new ArrayList<>(List.of("ss", "-K", "-t", "("));
    boolean firstService = true;
    for (Map.Entry<Service, List<List<String>>> e : share.entrySet()) {
      if (!firstService) {
        c.add("or");
      }
      firstService = false;
      Service s = e.getKey();
      c.addAll(List.of("(", "src", s.address, "and", "sport", "=", ":" + s.port, "and", "("));
      boolean first = true;
      for (List<String> term : e.getValue()) {
        if (!first) {
          c.add("or");
        }
        first = false;
        c.addAll(term);
      }
      c.addAll(List.of(")", ")"));
    }
    c.add(")");
    return c;
  }
}
