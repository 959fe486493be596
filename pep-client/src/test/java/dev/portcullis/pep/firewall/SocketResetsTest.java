package dev.portcullis.pep.firewall;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.netfilter.Flow;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code ss -K} commands for ended flows, without a kernel: what each filter names, and that
 * shared between several commands every socket is named by exactly one of them.
 */
class SocketResetsTest {
  static final String ALICE = "10.0.0.7";
  static final String BOB = "10.0.0.8";
  static final String SERVER = "192.0.2.10";

  static Flow tcp(String client, int port) throws Exception {
    return new Flow(InetAddress.getByName(client), port, InetAddress.getByName(SERVER), 22, 6);
  }

  @Test
  void aWholeGrantIsNamedByItsAddressAndAnotherGrantsFlowsByTheirPorts() throws Exception {
    List<Flow> ended = List.of(tcp(ALICE, 40000), tcp(ALICE, 40001), tcp(BOB, 50000));
    List<List<String>> c =
        SocketResets.commands(ended, f -> f.source().getHostAddress().equals(ALICE), 4);
    assertEquals(1, c.size(), "fewer than SPLIT_AT flows: one ss");
    assertEquals(
        "ss -K -t ( ( src 192.0.2.10 and sport = :22 and ( ( dst 10.0.0.7 ) or dst 10.0.0.8:50000"
            + " ) ) )",
        String.join(" ", c.get(0)));
  }

  @Test
  void noTcpFlowNoCommand() throws Exception {
    Flow udp = new Flow(InetAddress.getByName(ALICE), 5, InetAddress.getByName(SERVER), 53, 17);
    assertTrue(SocketResets.commands(List.of(udp), f -> true, 2).isEmpty());
  }

  /** Many flows: each of two commands has a share, and every port is named by exactly one. */
  @Test
  void sharedBetweenCommandsEverySocketIsNamedOnce() throws Exception {
    List<Flow> ended = new ArrayList<>();
    for (int i = 0; i < SocketResets.SPLIT_AT; i++) {
      ended.add(tcp(ALICE, 30000 + 3 * i)); // her grant ends whole
      ended.add(tcp(BOB, 20000 + i)); // bob's flows from a grant that goes on: named one by one
    }
    List<List<String>> c =
        SocketResets.commands(ended, f -> f.source().getHostAddress().equals(ALICE), 2);
    assertEquals(2, c.size());
    Map<Integer, Integer> bobs = new HashMap<>();
    for (List<String> command : c) {
      for (String w : command) {
        if (w.startsWith(BOB + ":")) {
          bobs.merge(Integer.parseInt(w.substring(BOB.length() + 1)), 1, Integer::sum);
        }
      }
    }
    assertEquals(SocketResets.SPLIT_AT, bobs.size(), "every one of bob's ports named");
    assertTrue(bobs.values().stream().allMatch(n -> n == 1), "each once");
    // alice's address in port ranges: the first below a bound, the second from it on
    String first = String.join(" ", c.get(0));
    String second = String.join(" ", c.get(1));
    int bound = 30000 + 3 * (SocketResets.SPLIT_AT / 2);
    assertTrue(first.contains("( dst 10.0.0.7 and dport < :" + bound + " )"), first);
    assertTrue(second.contains("( dst 10.0.0.7 and dport >= :" + bound + " )"), second);
  }
}
