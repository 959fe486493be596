package dev.portcullis.pep.firewall;

import dev.portcullis.netfilter.Conntrack;
import dev.portcullis.netfilter.Flow;
import dev.portcullis.netfilter.Nftables;
import dev.portcullis.netfilter.PacketQueue;
import dev.portcullis.netfilter.QueuedPacket;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host firewall's hands on the kernel: its netfilter queue (read, verdicts), its table in
 * nftables ({@code inet portcullis_TAG}: the set of allowed flows and each service's rules, made at
 * {@link #open} and taken away at {@link #close}), the xtables rules that queue a service's new
 * flows, and the ending of flows in the kernel (their set elements, conntrack entries and this
 * host's sockets). {@link HostFirewall} decides which flows; this says so to the kernel. Owned by
 * the firewall's kernel thread, the only one that calls it ({@link #wakeup} excepted: it ends that
 * thread's wait on the queue from any other).
 */
final class FirewallKernel implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FirewallKernel.class);

  /**
   * How long each step of ending flows took, in nanoseconds: their grants' elements (from then on
   * nothing of those flows crosses), their conntrack entries and this host's sockets (the two
   * together), and the flows' own elements (kept tidy after).
   */
  record Ended(long grantsNanos, long connectionsNanos, long elementsNanos) {}

  /**
   * The bytes of conntrack events the kernel holds for the firewall between its reads (4 MiB, as
   * root; the firewall reads them at least every 5 ms while they come); beyond them it drops events
   * and the firewall reads conntrack's table instead. The lab's tests make it small to see that
   * happen.
   */
  static volatile int eventBuffer = 4 << 20;

  private final HostFirewall.Settings settings;
  private final String table;
  private final PacketQueue queue;
  private final Nftables nft;

  private FirewallKernel(HostFirewall.Settings settings, PacketQueue queue, Nftables nft) {
    this.settings = settings;
    this.table = "portcullis_" + settings.tag();
    this.queue = queue;
    this.nft = nft;
  }

  /**
   * Binds {@code settings}' queue and sets the kernel up: the table, the set, the rules. The queue
   * first: a second firewall on it fails there, before it touches the first one's table and rules.
   *
   * @throws IOException when the kernel refuses (not root, the queue taken, nft's error)
   */
  static FirewallKernel open(HostFirewall.Settings settings) throws IOException {
    PacketQueue q = PacketQueue.open(settings.queue(), 4096, Duration.ofMillis(100));
    Nftables n = null;
    try {
      n = Nftables.open(); // one context for every command: see Nftables
      FirewallKernel k = new FirewallKernel(settings, q, n);
      // before the rules: a flow the kernel admits on a grant is never unheard of
      q.watchAdmitted(settings.mark(), eventBuffer);
      k.setUp();
      return k;
    } catch (IOException | RuntimeException e) {
      if (n != null) {
        n.close();
      }
      q.close();
      throw e;
    }
  }

  /** A flow's key in the set, read from a packet's headers. */
  private static final String KEY = "ip saddr . meta l4proto . th sport . ip daddr . th dport";

  /**
   * A grant's key in the set {@code granted}: the client's address and the service, which is what a
   * grant covers (one subject's flows from one address to one service), read from a packet.
   */
  private static final String GRANT = "ip saddr . meta l4proto . ip daddr . th dport";

  private void setUp() throws IOException {
    String bit = "0x" + Integer.toHexString(settings.mark());
    String others = "0x" + Integer.toHexString(~settings.mark());
    long validity = Math.max(1, settings.grantValidity().toSeconds());
    StringBuilder rules = new StringBuilder();
    rules.append("add table inet ").append(table).append('\n');
    rules.append("delete table inet ").append(table).append('\n'); // what an earlier run left
    rules.append("add table inet ").append(table).append('\n');
    rules
        .append("add set inet ")
        .append(table)
        .append(" allowed { type ipv4_addr . inet_proto . inet_service . ipv4_addr . inet_service;")
        .append(" flags timeout, dynamic; size ")
        .append(settings.maxFlows())
        .append("; }\n");
    // A flow's packets cross while both its own element and its grant's are here: revoking a
    // grant deletes one element, however many flows it carries (deleting 1,000 flows' elements
    // was one nft command of 13-32 ms here; the grant's one element is 0.3 ms idle, 5-15 ms in the
    // middle of FirewallBench's load).
    // No timeout: a packet only looks it up (no second write per packet, which a timeout renewed
    // by each would be); the firewall deletes it when the grant's last flow is over.
    rules
        .append("add set inet ")
        .append(table)
        .append(" granted { type ipv4_addr . inet_proto . ipv4_addr . inet_service;")
        .append(" flags dynamic; size ")
        .append(settings.maxFlows())
        .append("; }\n");
    // Grants reused in the kernel: a client address and a service whose grant's validity lasts
    // (its timeout). A new flow's first packet from there is admitted with no queue: it gets the
    // mark bit as a verdict would give it (the queue's rule passes it by, the rule after the
    // queue adds its flow), and its conntrack entry gets the bit too, so that conntrack's
    // new-flow event tells the firewall of the flow after it (audit, expiry, revocation).
    rules
        .append("add set inet ")
        .append(table)
        .append(" reusable { type ipv4_addr . inet_proto . ipv4_addr . inet_service;")
        .append(" flags timeout; size ")
        .append(settings.maxFlows())
        .append("; }\n");
    // before the queue (xtables' filter, priority 0) and after it
    rules
        .append("add chain inet ")
        .append(table)
        .append(" input { type filter hook input priority -5; policy accept; }\n");
    rules
        .append("add chain inet ")
        .append(table)
        .append(" admit { type filter hook input priority 10; policy accept; }\n");
    for (HostFirewall.Service s : settings.services()) {
      String to =
          "ip daddr "
              + s.address().getHostAddress()
              + " meta l4proto "
              + s.protocol()
              + " th dport "
              + s.port()
              + " ";
      // an allowed flow's packets, while its grant holds: accepted in the kernel, each renewing
      // the flow's element's timeout
      rules
          .append("add rule inet ")
          .append(table)
          .append(" input ")
          .append(to)
          .append(KEY)
          .append(" @allowed ")
          .append(GRANT)
          .append(" @granted update @allowed { ")
          .append(KEY)
          .append(" timeout ")
          .append(validity)
          .append("s } accept\n");
      // the bit cleared before the queue: only the verdict on an allowed flow's packet sets it
      rules
          .append("add rule inet ")
          .append(table)
          .append(" input ")
          .append(to)
          .append("meta mark set meta mark & ")
          .append(others)
          .append('\n');
      // anything else to the service but a new flow's first packet (those go to the queue):
      // dropped
      rules
          .append("add rule inet ")
          .append(table)
          .append(" input ")
          .append(to)
          .append(s.protocol() == Flow.TCP ? "tcp flags & (syn | ack) != syn" : "ct state != new")
          .append(" drop\n");
      // a new flow's first packet on a grant the kernel may reuse: admitted with no queue
      rules
          .append("add rule inet ")
          .append(table)
          .append(" input ")
          .append(to)
          .append(GRANT)
          .append(" @reusable meta mark set meta mark | ")
          .append(bit)
          .append(" ct mark set ct mark | ")
          .append(bit)
          .append('\n');
      // after the queue: a packet the verdict allowed adds its flow and its grant to the sets, in
      // the kernel, so the flow's next packets find them; no command from here on a flow's way in
      String admitted =
          "add rule inet " + table + " admit " + to + "meta mark & " + bit + " == " + bit;
      rules
          .append(admitted)
          .append(" add @allowed { ")
          .append(KEY)
          .append(" timeout ")
          .append(validity)
          .append("s } add @granted { ")
          .append(GRANT)
          .append(" } meta mark set meta mark & ")
          .append(others)
          .append('\n');
      // the sets full (max-flows): the rule above stopped at its add, the bit still set, and the
      // packet is dropped; let through, a SYN would connect a flow whose next packets find no
      // element (the client connected, and nothing crossing)
      rules.append(admitted).append(" drop\n");
    }
    nft.execute(rules.toString());
    for (HostFirewall.Service s : settings.services()) {
      // a firewall killed before on this queue (SIGKILL skips close) left its rule: deleted, so
      // that a restart does not stack them (and none outlives this one's close)
      int stale = 0;
      while (stale < 16 && deleted(s)) {
        stale++;
      }
      if (stale > 0) {
        log.info(
            "host firewall: {} queue rule(s) for {}:{} left by an earlier run, deleted",
            stale,
            s.address().getHostAddress(),
            s.port());
      }
      iptables("-I", s);
    }
  }

  /**
   * The xtables rule that queues a service's new flows ({@code -I} adds it, {@code -D} deletes it).
   */
  private void iptables(String op, HostFirewall.Service s) throws IOException {
    List<String> c = new ArrayList<>(List.of("iptables", op, "INPUT"));
    // a TCP flow's SYN; a UDP flow's first datagram (and those behind it before the verdict)
    c.addAll(
        s.protocol() == Flow.TCP
            ? List.of("-p", "tcp", "--syn")
            : List.of("-p", "udp", "-m", "conntrack", "--ctstate", "NEW"));
    c.addAll(
        List.of(
            "-d",
            s.address().getHostAddress(),
            "--dport",
            Integer.toString(s.port()),
            // admitted on a reused grant already (the mark bit): not queued
            "-m",
            "mark",
            "!",
            "--mark",
            "0x"
                + Integer.toHexString(settings.mark())
                + "/0x"
                + Integer.toHexString(settings.mark()),
            "-j",
            "NFQUEUE",
            "--queue-num",
            Integer.toString(settings.queue())));
    run(c);
  }

  /** Whether service {@code s}'s queue rule was there to delete (once). */
  private boolean deleted(HostFirewall.Service s) {
    try {
      iptables("-D", s);
      return true;
    } catch (IOException none) {
      return false; // "Bad rule (does a matching rule exist in that chain?)"
    }
  }

  /**
   * Runs a command from the calling thread (so in its network namespace), failing with its output.
   */
  private static void run(List<String> command) throws IOException {
    await(new ProcessBuilder(command).redirectErrorStream(true).start(), String.join(" ", command));
  }

  /** Waits for {@code p} (at most 10 s), failing with its output unless it exits with 0. */
  private static void await(Process p, String command) throws IOException {
    try {
      // its output, then its errors (each empty where redirected: ss's list of what it killed)
      String out =
          new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
              + new String(
                  p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(command + ": no answer in 10 s");
      }
      if (p.exitValue() != 0) {
        throw new IOException(command + ": exit " + p.exitValue() + ": " + out.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(command + ": interrupted", e);
    }
  }

  /**
   * The next queued packet, waiting at most {@code millis} (0: none waited for); null: none, or
   * ({@code admittedToo}) flows the kernel admitted are waiting for {@link #admitted}.
   */
  QueuedPacket receive(int millis, boolean admittedToo) throws IOException {
    return queue.receive(millis, admittedToo);
  }

  /**
   * The flows the kernel admitted itself on reused grants since the last call (conntrack's events,
   * read now without waiting), and how many events were lost.
   */
  PacketQueue.Admitted admitted() {
    return queue.admitted();
  }

  /**
   * The flows whose conntrack entry carries the firewall's bit: each flow the kernel admitted on a
   * reused grant, for as long as conntrack tracks it (what lost events are recovered from).
   */
  List<Flow> admittedInConntrack() throws IOException {
    return Conntrack.marked(settings.mark());
  }

  /**
   * Lets the kernel admit new flows on {@code f}'s grant (its client address and service) by itself
   * for {@code seconds} from now, in place of any time it had (shorter too).
   */
  void reuse(Flow f, long seconds) {
    String g = grant(f);
    try {
      nft.execute(
          endReuseCommands(List.of(f))
              + "add element inet "
              + table
              + " reusable { "
              + g
              + " timeout "
              + Math.max(1, seconds)
              + "s }");
    } catch (IOException e) {
      log.warn("host firewall: grant {} not reusable in the kernel: {}", g, e.getMessage());
    }
  }

  /** Ends the kernel's reuse of the grants of {@code flows} now (none there is not an error). */
  void endReuse(List<Flow> flows) {
    executeOrWarn(endReuseCommands(flows), "grants still reusable in the kernel: ");
  }

  /** Runs nft {@code commands} (none: nothing); a failure is logged, {@code what} before it. */
  private void executeOrWarn(String commands, String what) {
    if (commands.isEmpty()) {
      return;
    }
    try {
      nft.execute(commands);
    } catch (IOException e) {
      log.warn("host firewall: {}{}", what, e.getMessage());
    }
  }

  /**
   * The commands that delete the {@code reusable} elements of {@code flows}' grants in a
   * transaction that cannot fail for one that is gone (timed out): each added first.
   */
  private String endReuseCommands(List<Flow> flows) {
    StringBuilder c = new StringBuilder();
    for (String g :
        new java.util.LinkedHashSet<>(flows.stream().map(FirewallKernel::grant).toList())) {
      c.append("add element inet ")
          .append(table)
          .append(" reusable { ")
          .append(g)
          .append(" timeout 1s }\n");
      c.append("delete element inet ")
          .append(table)
          .append(" reusable { ")
          .append(g)
          .append(" }\n");
    }
    return c.toString();
  }

  /** Packets the queue's socket could not take (its receive buffer full). */
  long overflows() {
    return queue.overflows();
  }

  /** Ends the kernel thread's wait in {@link #receive} (from any thread). */
  void wakeup() {
    queue.wakeup();
  }

  /** Accepts {@code p} with the firewall's mark bit (its rule after the queue admits the flow). */
  void verdict(QueuedPacket p, boolean accept) {
    try {
      if (accept) {
        queue.accept(p.id(), p.mark() | settings.mark());
      } else {
        queue.drop(p.id());
      }
    } catch (IOException e) {
      log.warn("host firewall: verdict on packet {} not given: {}", p.id(), e.getMessage());
    }
  }

  /** Whether allowed flow {@code f}'s element is still in the set (packets kept renewing it). */
  boolean holds(Flow f) {
    try {
      nft.execute("get element inet " + table + " allowed { " + element(f) + " }");
      return true;
    } catch (IOException gone) {
      return false; // no such element: it timed out in the kernel
    }
  }

  /**
   * Deletes the element of {@code f}'s grant (its client address and service), whose last flow is
   * over; gone already is not an error.
   */
  void forgetGrant(Flow f) {
    deleteElements("granted", List.of(f), FirewallKernel::grant, "");
  }

  /** Deletes {@code f}'s conntrack entry, so that its next packet is a new flow's again. */
  void forgetConnection(Flow f) throws IOException {
    Conntrack.delete(f);
  }

  /**
   * Ends allowed {@code flows} in the kernel, in this order: the elements of the grants that
   * carried them ({@code grants}: a flow of each grant whose flows all end here) in one nftables
   * transaction, after which nothing of those flows is accepted and a new flow on the same
   * addresses goes to the queue; then their conntrack entries on one handle while {@code ss -K}
   * destroys this host's sockets of them (one, or from {@link SocketResets#SPLIT_AT} flows one a
   * core; a process per flow took seconds for 200 flows: FirewallBench); then the flows' own
   * elements, which no packet can renew any more. A step that fails is logged and the next still
   * runs.
   *
   * <p>Before 2026-11-29 the flows' own elements were the first step: one transaction of 13-32 ms
   * for 1,000 flows (libnftables parsing and checking each), then conntrack (7 ms), then the
   * sockets, one after another.
   */
  Ended end(List<Flow> flows, List<Flow> grants, List<Flow> unreused) {
    long t0 = System.nanoTime();
    // The grants first, alone: started beside them, ss stretched their transaction from 5-15 to
    // about 42 ms here (FirewallBench, 1,000 flows), and they are what stops the flows. Their
    // reuse in the kernel ends in the same transaction: left a moment after them, a new flow on
    // it would add the grant's element again.
    deleteElements("granted", grants, FirewallKernel::grant, endReuseCommands(unreused));
    long t1 = System.nanoTime();
    List<Process> sockets = destroySockets(flows, grants);
    try {
      Conntrack.deleteAll(flows);
    } catch (IOException e) {
      log.warn("host firewall: conntrack entries not all deleted: {}", e.getMessage());
    }
    for (Process ss : sockets) {
      try {
        await(ss, "ss -K");
      } catch (IOException e) {
        log.warn("host firewall: sockets not destroyed: {}", e.getMessage());
      }
    }
    long t2 = System.nanoTime();
    deleteElements("allowed", flows, FirewallKernel::element, "");
    return new Ended(t1 - t0, t2 - t1, System.nanoTime() - t2);
  }

  /**
   * Deletes the elements {@code key} gives for {@code flows} from {@code set}, in one transaction
   * after the commands {@code first} (which cannot fail for an element gone); when one of them is
   * gone already (timed out: the transaction is all or nothing), {@code first} alone and then one
   * by one.
   */
  private void deleteElements(
      String set, List<Flow> flows, java.util.function.Function<Flow, String> key, String first) {
    if (flows.isEmpty()) {
      executeOrWarn(first, "");
      return;
    }
    java.util.Set<String> keys = new java.util.LinkedHashSet<>();
    for (Flow f : flows) {
      keys.add(key.apply(f));
    }
    String command = "delete element inet " + table + " " + set + " { ";
    try {
      nft.execute(first + command + String.join(", ", keys) + " }");
    } catch (IOException e) {
      executeOrWarn(first, "");
      for (String k : keys) {
        try {
          nft.execute(command + k + " }");
        } catch (IOException gone) {
          log.debug("host firewall: {} element {} gone already", set, k);
        }
      }
    }
  }

  /**
   * Starts destroying this host's TCP sockets of {@code ended} ({@code SOCK_DESTROY}, the client
   * reset): the {@code ss -K} commands {@link SocketResets} makes, at once, one a core from {@link
   * SocketResets#SPLIT_AT} flows on; a flow whose grant is in {@code grants} is named by its
   * client's address, the others by address and port. None when there are no TCP flows.
   */
  private static List<Process> destroySockets(List<Flow> ended, List<Flow> grants) {
    java.util.Set<String> whole = new java.util.HashSet<>();
    for (Flow g : grants) {
      whole.add(grant(g));
    }
    List<Process> started = new ArrayList<>();
    for (List<String> c :
        SocketResets.commands(
            ended,
            f -> whole.contains(grant(f)),
            Math.min(4, Runtime.getRuntime().availableProcessors()))) {
      try {
        // what it killed, a line a socket, is not read: several at once must not wait on pipes
        started.add(new ProcessBuilder(c).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
      } catch (IOException e) {
        log.warn("host firewall: sockets not destroyed: {}", e.getMessage());
      }
    }
    return started;
  }

  /** A grant's element: the client's address and the service. */
  private static String grant(Flow f) {
    return f.source().getHostAddress()
        + " . "
        + f.protocol()
        + " . "
        + f.destination().getHostAddress()
        + " . "
        + f.destinationPort();
  }

  private static String element(Flow f) {
    return f.source().getHostAddress()
        + " . "
        + f.protocol()
        + " . "
        + f.sourcePort()
        + " . "
        + f.destination().getHostAddress()
        + " . "
        + f.destinationPort();
  }

  /**
   * The kernel's drops on queue {@code number} in the calling thread's namespace: its line of
   * {@code nfnetlink_queue} is "queue peer-portid queue-total copy-mode copy-range queue-dropped
   * user-dropped id-sequence 1"; 0 when the queue has no line (no reader bound).
   */
  static long kernelDrops(int number) throws IOException {
    java.nio.file.Path proc =
        java.nio.file.Path.of("/proc/thread-self/net/netfilter/nfnetlink_queue");
    for (String line : java.nio.file.Files.readAllLines(proc)) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 7 && f[0].equals(Integer.toString(number))) {
        return Long.parseLong(f[5]) + Long.parseLong(f[6]);
      }
    }
    return 0;
  }

  /**
   * Takes the firewall out of the kernel: the xtables rules, then the table (flows allowed so far
   * then pass as any unprotected traffic would: the host's own rules decide), then the queue. Each
   * step that fails is logged and the next still runs.
   */
  @Override
  public void close() {
    for (HostFirewall.Service s : settings.services()) {
      try {
        iptables("-D", s);
      } catch (IOException e) {
        log.warn("host firewall: {}", e.getMessage());
      }
    }
    try {
      nft.execute("delete table inet " + table);
    } catch (IOException e) {
      log.warn("host firewall: {}", e.getMessage());
    } finally {
      nft.close();
    }
    queue.close();
  }
}
