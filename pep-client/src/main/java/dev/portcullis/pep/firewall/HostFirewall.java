package dev.portcullis.pep.firewall;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.netfilter.Flow;
import dev.portcullis.netfilter.PacketQueue;
import dev.portcullis.netfilter.QueuedPacket;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepListener;
import dev.portcullis.support.Threads;
import dev.portcullis.support.Timebase;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enforcement in the kernel, with no proxy in the data path (issue 45; docs/host-firewall.md): the
 * first packet of a new flow to a protected service (a TCP SYN, a UDP flow's first datagram) is
 * queued to this PEP through the netfilter queue; the PEP asks the PDP the same ACCESS request the
 * proxy asks; an allowed flow goes into an nftables set that lets its later packets through in the
 * kernel, a denied one is dropped. A Remove (a policy change) deletes the flow's element, its
 * conntrack entry, and destroys the local socket ({@code ss -K}), so an established connection ends
 * at once and nothing more crosses.
 *
 * <p>The kernel's side, in the table {@code inet portcullis_TAG}: a set {@code allowed} of {@code
 * saddr . protocol . sport . daddr . dport}; per service, in a chain before the queue, a rule that
 * accepts the set's flows, one that clears the firewall's mark bit, and one that drops every other
 * packet but a new flow's first; those are sent to the queue by an xtables {@code NFQUEUE} rule
 * (this kernel has no nft {@code queue} statement), without {@code --queue-bypass}: with no reader,
 * new flows are dropped (fail closed). An allowed packet is accepted with the mark bit set, and a
 * rule in a chain after the queue adds its flow to the set, in the kernel, with the packet: no
 * command runs on a flow's way in. While a grant's validity lasts, the kernel admits its subject's
 * new flows from that address by itself (a set {@code reusable}; nothing queued), and the firewall
 * hears of each after, from conntrack's new-flow events, and holds it as any.
 *
 * <p>Threads: one, the kernel thread, reads the queue and conntrack's events, owns the flow table
 * and speaks to the kernel (verdicts, nftables, conntrack); the PDP's answers arrive on the PEP
 * client's loop and are handed to it, waking it from its wait on the queue. The kernel thread is in
 * the namespace {@code onKernelThread} puts it in (for the lab; the host's otherwise), and the
 * queue's socket with it.
 */
public final class HostFirewall implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HostFirewall.class);

  /** An incoming connection's admission (RFC 2748 Context R-Type "incoming message"). */
  private static final Context INCOMING = new Context(Context.R_INCOMING, 0);

  /**
   * A protected service: the address, port and protocol ({@link Flow#TCP} or {@link Flow#UDP})
   * clients reach, and the name policy knows.
   */
  public record Service(
      String name, Inet4Address address, int port, int protocol, AccessMode access) {
    public Service {
      if (protocol != Flow.TCP && protocol != Flow.UDP) {
        throw new IllegalArgumentException("protocol " + protocol + ": expected TCP or UDP");
      }
    }

    /** A TCP service. */
    public Service(String name, Inet4Address address, int port, AccessMode access) {
      this(name, address, port, Flow.TCP, access);
    }
  }

  /** The MLS level and categories a subject's session is opened at. */
  public record SessionLevel(int level, List<String> categories) {
    public SessionLevel {
      categories = List.copyOf(categories);
    }
  }

  /**
   * The packet-mark bit an allowed flow's first packet is given by default (see {@link #start}).
   */
  public static final int DEFAULT_MARK = 0x0010_0000;

  /**
   * What the firewall enforces.
   *
   * @param tag names its nftables table ({@code portcullis_TAG}): letters and digits
   * @param queue the netfilter queue number its SYNs go to
   * @param subjects the subject a client address is (null: none, its SYNs dropped)
   * @param grantValidity how long an allowed flow stays in the set with no packet renewing it; then
   *     it is forgotten here and its request state deleted at the PDP
   * @param maxFlows the most flows the kernel's set holds
   * @param closeOnPdpLoss when the PDP is lost, end every allowed flow too ({@code close-all}), not
   *     only refuse new ones ({@code keep-granted}, the flows already allowed going on); new flows
   *     are refused either way until a PDP is back (fail closed)
   * @param mark the one packet-mark bit the verdict on an allowed flow's first packet sets, for the
   *     firewall's rule after the queue to add the flow to the set and clear it again: a bit
   *     nothing else on the host sets
   * @param sessions the subjects whose flows are decided under an MLS session, and its level (the
   *     others have none): see {@link FirewallSessions}
   */
  public record Settings(
      String tag,
      int queue,
      List<Service> services,
      Function<InetAddress, String> subjects,
      Duration grantValidity,
      int maxFlows,
      boolean closeOnPdpLoss,
      int mark,
      Map<String, SessionLevel> sessions) {
    public Settings {
      sessions = Map.copyOf(sessions);
      if (Integer.bitCount(mark) != 1) {
        throw new IllegalArgumentException(
            "mark 0x" + Integer.toHexString(mark) + ": expected exactly one bit");
      }
    }
  }

  /** A flow allowed or waiting, on the kernel thread. */
  private static final class Tracked {
    final Flow flow;
    final Grant grant;
    final List<QueuedPacket> waiting = new ArrayList<>(1); // queued, awaiting the decision
    boolean allowed;

    Tracked(Flow flow, Grant grant) {
      this.flow = flow;
      this.grant = grant;
    }
  }

  /**
   * One subject's access to one service from one client address, on one handle: asked of the PDP
   * once, however many flows wait for it (a SYN flood from one subject's many ports is one
   * request), and reused for the subject's new flows from that address while the decision's
   * validity lasts (the rule's {@code valid-for}; none: asked again). Never from another address: a
   * rule may decide on the address, and a grant from one says nothing of another (the proxy's rule,
   * issue 41). A changed Install of its handle gives it the new validity from then on. The grants
   * of one subject and service from several addresses ask one at a time (a {@link Turn}), so a SYN
   * flood from many of the subject's addresses is never more than one request in flight at the PDP
   * for it.
   */
  private static final class Grant {
    final String subject;
    final Service service;
    final InetAddress client;
    final String handle;
    final List<Tracked> flows = new ArrayList<>(2);
    boolean asking;
    long validUntil; // System.nanoTime; reusable while before it

    Grant(String subject, Service service, InetAddress client, String handle) {
      this.subject = subject;
      this.service = service;
      this.client = client;
      this.handle = handle;
    }

    Key key() {
      return new Key(subject, service, client);
    }
  }

  /** A subject's requests for a service: one in flight at a time, from however many addresses. */
  private record Turn(String subject, Service service) {}

  /** A grant's key: the subject, the service and the client's address. */
  private record Key(String subject, Service service, InetAddress client) {}

  /** What the kernel knows a grant by: the client's address and the service. */
  private record Endpoint(Service service, InetAddress client) {}

  private final Settings settings;
  private final PepClient pep;
  private final FirewallAudit audit;
  private final FirewallCounters counters = new FirewallCounters();
  private final FirewallSessions sessions; // the kernel thread's
  private final ScheduledExecutorService kernel;
  private final Map<Flow, Tracked> flows = new HashMap<>(); // the kernel thread's
  private final Map<Key, Grant> grants = new HashMap<>(); // the kernel thread's
  private final Map<String, Grant> byHandle = new HashMap<>(); // the kernel thread's

  /**
   * Allowed flows per client address and service: what the kernel's {@code granted} element of that
   * pair carries (a grant's, or in a moment of re-mapping two subjects'). The kernel thread's.
   */
  private final Map<Endpoint, Integer> allowedAt = new HashMap<>();

  /**
   * The grant whose reuse the kernel's {@code reusable} element of a client address and service
   * stands for: a flow the kernel admits there is that grant's. The kernel thread's.
   */
  private final Map<Endpoint, Grant> reusing = new HashMap<>();

  /**
   * Grants whose reuse in the kernel ends: their elements are deleted with the next flows' ending
   * ({@link FirewallKernel#end}, in the transaction that stops the flows) or, at the latest, at the
   * end of the kernel thread's task. The kernel thread's.
   */
  private final List<Flow> reuseEnding = new ArrayList<>();

  // the kernel thread's: per subject and service, the grant asking and those waiting their turn
  private final Map<Turn, java.util.ArrayDeque<Grant>> turns = new HashMap<>();
  private long handles;

  /** How long the kernel thread reads flows the kernel admitted before it waits for them again. */
  private static final long EVENT_PAUSE = TimeUnit.MILLISECONDS.toNanos(5);

  /** The kernel thread's: when it last found flows the kernel admitted (System.nanoTime), or 0. */
  private long eventsSeenAt;

  private boolean full; // the kernel thread's: max-flows reached, said once
  private volatile boolean closing;
  // opened, read, given verdicts and closed on the kernel thread; woken from any (wakeup)
  private volatile FirewallKernel kernelSide;
  private volatile String queueFailure; // why the kernel thread stopped reading the queue, or null

  private HostFirewall(Settings settings, PepClient pep, AuditLog audit) {
    this.settings = settings;
    this.pep = pep;
    this.audit = new FirewallAudit(audit, pep.pepId());
    this.kernel = Threads.owner("host-firewall-" + settings.tag());
    this.sessions =
        new FirewallSessions(
            settings.sessions(), pep, this.audit, this::onKernel, "fw-" + settings.tag() + "-");
  }

  /**
   * The listener to give the PEP client the firewall will use: the PDP's Removes arrive through it.
   * Made before the client (a client takes its listener when built), bound by {@link #start}.
   */
  public static final class Removals implements PepListener {
    private volatile HostFirewall firewall;

    @Override
    public void decisionChanged(String handle, PepDecision d) {
      HostFirewall f = firewall;
      if (f != null) {
        f.onKernel(
            () -> {
              if (d.granted()) {
                f.reinstalled(handle, d);
              } else {
                f.revoke(handle, d);
              }
            });
      }
    }

    @Override
    public void disconnected(dev.portcullis.pep.PepException reason) {
      HostFirewall f = firewall;
      if (f != null) {
        f.onKernel(() -> f.pdpLost(reason));
      }
    }
  }

  /**
   * Binds the queue, sets the kernel up (the table, the set, the rules) and starts reading the
   * queue. {@code onKernelThread} runs first on the firewall's kernel thread, where the queue is
   * opened and every rule made (the lab moves it into its server namespace); null for none.
   *
   * @throws IOException when the kernel refuses (not root, the queue taken, nft's error)
   */
  public static HostFirewall start(
      Settings settings,
      PepClient pep,
      Removals removals,
      AuditLog audit,
      ThrowingRunnable onKernelThread)
      throws IOException {
    if (!settings.tag().matches("[A-Za-z0-9]{1,20}")) {
      throw new IllegalArgumentException("tag " + settings.tag() + ": 1 to 20 letters or digits");
    }
    HostFirewall f = new HostFirewall(settings, pep, audit == null ? AuditLog.NONE : audit);
    try {
      f.kernel
          .submit(
              () -> {
                if (onKernelThread != null) {
                  onKernelThread.run();
                }
                f.kernelSide = FirewallKernel.open(settings);
                return null;
              })
          .get();
    } catch (ExecutionException e) {
      f.kernel.shutdownNow();
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.kernel.shutdownNow();
      throw new IOException("interrupted setting the firewall up", e);
    }
    f.kernel.execute(f::readSome); // the queue is read on the thread that owns the flow table
    removals.firewall = f;
    log.info(
        "host firewall {}: {} service(s) under policy, new flows through netfilter queue {}",
        settings.tag(),
        settings.services().size(),
        settings.queue());
    return f;
  }

  /** Why the firewall cannot run here (its native library), or null. */
  public static String unavailable() {
    return PacketQueue.unavailable();
  }

  /** A task that may throw, run first on the firewall's threads. */
  @FunctionalInterface
  public interface ThrowingRunnable {
    void run() throws Exception;
  }

  /**
   * On the kernel thread: reads the queue for at most 50 ms (a {@link PacketQueue#wakeup} from
   * {@link #onKernel} ends the wait at once: a task has come), decides the packets that came, up to
   * 64, then goes back in line behind the tasks that came meanwhile. The queue is read on the
   * thread that owns the flow table, so a flow's first packet is decided where it is read: on a
   * reused grant, its verdict with no hand-over between threads (one thread wake-up, where a reader
   * thread handing each packet over took two: FirewallBench).
   */
  private void readSome() {
    if (closing) {
      return;
    }
    try {
      // Flows the kernel admitted wake this thread only once per EVENT_PAUSE: woken by each,
      // this thread took the cores' time from the connections themselves (FirewallBench: a reused
      // grant 1.04-1.51x no policy, against 0.85-1.02x read in batches)
      long pause = eventsSeenAt == 0 ? 0 : EVENT_PAUSE - (System.nanoTime() - eventsSeenAt);
      QueuedPacket p =
          pause > 0
              ? kernelSide.receive((int) TimeUnit.NANOSECONDS.toMillis(pause) + 1, false)
              : kernelSide.receive(50, true);
      for (int n = 1; p != null; n++) {
        queued(p);
        p = n < 64 ? kernelSide.receive(0, false) : null;
      }
      counters.readerDropped.set(kernelSide.overflows());
      admittedByKernel();
      endReuse();
    } catch (IOException e) {
      if (!closing) {
        queueFailure = e.getMessage();
        log.error(
            "host firewall {}: the queue failed, new flows are dropped: {}",
            settings.tag(),
            e.getMessage());
      }
      return;
    }
    try {
      kernel.execute(this::readSome);
    } catch (java.util.concurrent.RejectedExecutionException closed) {
      // the firewall closed meanwhile
    }
  }

  private Service serviceOf(Flow f) {
    for (Service s : settings.services()) {
      if (s.address().equals(f.destination())
          && s.port() == f.destinationPort()
          && s.protocol() == f.protocol()) {
        return s;
      }
    }
    return null;
  }

  /** On the kernel thread: a queued packet (a new flow's first to a protected service). */
  private void queued(QueuedPacket p) {
    counters.queued.incrementAndGet();
    Flow f = p.flow();
    Service s = f == null ? null : serviceOf(f);
    if (s == null || (s.protocol() == Flow.TCP && !p.syn())) {
      kernelSide.verdict(
          p, false); // not a first packet this firewall queues: never let through blind
      return;
    }
    Tracked t = flows.get(f);
    if (t != null) {
      if (t.allowed) {
        kernelSide.verdict(p, true); // a SYN sent again, a datagram that was behind the first
      } else {
        t.waiting.add(p);
      }
      return;
    }
    if (flows.size() >= settings.maxFlows()) {
      if (!full) {
        log.warn(
            "host firewall {}: {} flows, its max-flows: new flows refused until some end",
            settings.tag(),
            flows.size());
      }
      full = true;
      counters.overLimit.incrementAndGet();
      audit.refused(f, s.name(), "max-flows");
      kernelSide.verdict(p, false);
      return;
    }
    full = false;
    String subject = settings.subjects().apply(f.source());
    if (subject == null) {
      log.debug("host firewall: {}: no subject for {}, dropped", f, f.source());
      counters.noSubject.incrementAndGet();
      audit.refused(f, s.name(), "no subject");
      kernelSide.verdict(p, false);
      return;
    }
    Key key = new Key(subject, s, f.source());
    Grant g = grants.get(key);
    if (g == null) {
      g = new Grant(subject, s, f.source(), "fw-" + settings.tag() + "-" + (++handles));
      grants.put(key, g);
      byHandle.put(g.handle, g);
      if (sessions.carries(subject)) {
        sessions.grantMade(subject); // logged in now if it is not
      }
    }
    t = new Tracked(f, g);
    t.waiting.add(p);
    flows.put(f, t);
    g.flows.add(t);
    if (g.asking) {
      return; // decided with the request already out
    }
    if (!g.flows.isEmpty() && g.validUntil != 0 && System.nanoTime() - g.validUntil < 0) {
      audit.allowedOnGrant(g.handle, g.subject, g.service.name(), f);
      counters.allowedOnGrant.incrementAndGet();
      allow(t); // the subject's grant, within its validity: no request
      if (reusing.get(new Endpoint(s, f.source())) != g) {
        reuseInKernel(g); // not reused there yet (subjectsChanged): the next flows need no queue
      }
      return;
    }
    ask(g, f);
  }

  /** Asks the PDP for {@code g}, naming the flow {@code f} that needs it. */
  private void ask(Grant g, Flow f) {
    g.asking = true;
    if (sessions.carries(g.subject)) {
      // under the subject's session: asked once it is logged in; refused with it
      sessions.whenReady(
          g.subject,
          () -> {
            if (byHandle.get(g.handle) == g && !g.flows.isEmpty()) {
              inTurn(g, g.flows.get(0).flow);
            } else {
              g.asking = false;
            }
          },
          () -> {
            g.asking = false;
            if (byHandle.get(g.handle) == g) {
              drop(g, null); // never asked: no request state at the PDP
              endAll(g.flows, "session-refused");
            }
          });
      return;
    }
    inTurn(g, f);
  }

  /** Asks for {@code g} when its turn comes: one request per subject and service in flight. */
  private void inTurn(Grant g, Flow f) {
    java.util.ArrayDeque<Grant> line =
        turns.computeIfAbsent(new Turn(g.subject, g.service), k -> new java.util.ArrayDeque<>());
    line.add(g);
    if (line.size() == 1) {
      send(g, f);
    } // else its turn comes when the requests before it are answered: see next
  }

  /** Sends {@code g}'s request, naming the flow {@code f} that needs it. */
  private void send(Grant g, Flow f) {
    long asked = System.nanoTime();
    int inFlight = counters.requestsInFlight.incrementAndGet();
    counters.mostRequestsInFlight.accumulateAndGet(inFlight, Math::max);
    pep.request(g.handle, INCOMING, access(g.subject, f, g.service))
        .whenComplete(
            (d, e) -> {
              counters.requestsInFlight.decrementAndGet();
              onKernel(
                  () -> {
                    io.micrometer.core.instrument.Timer rtt = counters.decisionRoundTrip;
                    if (rtt != null) {
                      rtt.record(System.nanoTime() - asked, TimeUnit.NANOSECONDS);
                    }
                    audit.decided(g.handle, g.subject, g.service.name(), f, d, e);
                    decided(g, d, e);
                    next(g);
                  });
            });
  }

  /**
   * On the kernel thread, {@code g} answered: the next grant of its subject and service in line
   * (from another address) sends its request; those revoked or left without flows meanwhile are
   * passed over.
   */
  private void next(Grant g) {
    Turn k = new Turn(g.subject, g.service);
    java.util.ArrayDeque<Grant> line = turns.get(k);
    if (line == null) {
      return;
    }
    line.remove(g);
    while (!line.isEmpty()) {
      Grant n = line.peek();
      if (byHandle.get(n.handle) == n && !n.flows.isEmpty()) {
        send(n, n.flows.get(0).flow);
        return;
      }
      line.poll();
      n.asking = false;
    }
    turns.remove(k);
  }

  /**
   * Hands {@code task} to the kernel thread, from the PEP client's loop; nothing once the firewall
   * is closing (its rules are being removed, and its thread with them).
   */
  private void onKernel(Runnable task) {
    if (closing) {
      return;
    }
    try {
      kernel.execute(
          () -> {
            admittedByKernel(); // the task sees every flow the kernel admitted so far
            task.run();
            endReuse(); // what the task ended is not reused in the kernel past it
          });
      wakeReader();
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** Ends the kernel thread's wait on the queue, so that a task handed to it runs now. */
  private void wakeReader() {
    FirewallKernel k = kernelSide;
    if (k != null) {
      k.wakeup();
    }
  }

  /** Runs {@code task} on the kernel thread and waits at most {@code seconds} for its answer. */
  private <T> T onKernelAndWait(java.util.concurrent.Callable<T> task, int seconds)
      throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
    java.util.concurrent.Future<T> f =
        kernel.submit(
            () -> {
              if (kernelSide != null && !closing) {
                admittedByKernel(); // the answer counts every flow the kernel admitted so far
              }
              return task.call();
            });
    wakeReader();
    return f.get(seconds, TimeUnit.SECONDS);
  }

  static AccessRequest access(String subject, Flow f, Service s) {
    return new AccessRequest(
        AccessOperation.ACCESS,
        subject,
        null,
        null,
        f.source(),
        f.sourcePort(),
        f.destination(),
        f.destinationPort(),
        f.protocol(),
        s.name(),
        s.access(),
        null,
        null);
  }

  /** On the kernel thread: the PDP's answer for a grant (or none: then it is denied). */
  private void decided(Grant g, PepDecision d, Throwable e) {
    g.asking = false;
    if (byHandle.get(g.handle) != g) {
      return; // revoked or closed meanwhile
    }
    boolean granted = e == null && d != null && d.granted();
    g.validUntil = granted ? validUntil(d) : 0;
    if (!granted) {
      stopReuse(g); // with the flows' ending, when they end
    }
    if (!granted && e == null) {
      endAll(g.flows, "refused-again"); // asked again and refused: the access is over
    }
    for (Tracked t : List.copyOf(g.flows)) {
      if (granted) {
        if (!t.allowed) {
          counters.allowed.incrementAndGet();
          allow(t);
        }
      } else if (!t.allowed) {
        deny(t); // no answer (no PDP): new flows refused; allowed ones are pdpLost's to decide
      }
    }
    if (g.flows.isEmpty()) {
      drop(g, e == null ? dev.portcullis.cops.ReasonCode.MANAGEMENT : null);
    } else if (granted) {
      reuseInKernel(g); // after the verdicts: one nft command, off the waiting flows' way
    }
  }

  /**
   * On the kernel thread: the kernel admits {@code g}'s new flows by itself while its validity
   * lasts (from its client address to its service, none asked for and none queued); with no
   * validity left, no more. The flows admitted so are reported after ({@link #admittedByKernel}).
   */
  private void reuseInKernel(Grant g) {
    // whole seconds, rounded down: the kernel never reuses a grant past its validity
    long left =
        g.validUntil == 0 ? 0 : TimeUnit.NANOSECONDS.toSeconds(g.validUntil - System.nanoTime());
    Endpoint ep = new Endpoint(g.service, g.client);
    if (left <= 0) {
      stopReuse(g);
      return;
    }
    reusing.put(ep, g);
    reuseEnding.remove(reuseKey(g)); // reused again before its end went to the kernel
    kernelSide.reuse(reuseKey(g), left);
  }

  /**
   * What the kernel's {@code reusable} element of {@code g} is made from: its client address and
   * service (a flow with no client port).
   */
  private static Flow reuseKey(Grant g) {
    return new Flow(g.client, 0, g.service.address(), g.service.port(), g.service.protocol());
  }

  /**
   * On the kernel thread: {@code g}'s reuse in the kernel ends (if it was the grant its client
   * address and service were reused for), with the next flows ended or at the end of this task.
   */
  private void stopReuse(Grant g) {
    if (reusing.remove(new Endpoint(g.service, g.client), g)) {
      reuseEnding.add(reuseKey(g));
    }
  }

  /** On the kernel thread, at the end of a task: the reuse its grants lost ends in the kernel. */
  private void endReuse() {
    if (!reuseEnding.isEmpty()) {
      kernelSide.endReuse(List.copyOf(reuseEnding));
      reuseEnding.clear();
    }
  }

  /**
   * On the kernel thread: the flows the kernel admitted by itself on reused grants (conntrack's
   * events), each made the grant's as if it had been queued: recorded, held, expired and ended as
   * any; when events were lost, conntrack's table of marked flows is read for those not seen.
   */
  private void admittedByKernel() {
    eventsSeenAt = 0;
    for (int i = 0; i < 64; i++) {
      PacketQueue.Admitted a = kernelSide.admitted();
      if (!a.flows().isEmpty()) {
        eventsSeenAt = System.nanoTime();
      }
      for (Flow f : a.flows()) {
        admittedByKernel(f);
      }
      if (a.lost() > 0) {
        counters.eventsLost.addAndGet(a.lost());
        recover();
      }
      if (a.flows().isEmpty() && a.lost() == 0) {
        return;
      }
    }
  }

  /** On the kernel thread: events were lost; the marked flows conntrack holds are looked at. */
  private void recover() {
    List<Flow> marked;
    try {
      marked = kernelSide.admittedInConntrack();
    } catch (IOException e) {
      log.error(
          "host firewall {}: conntrack events lost and its table unreadable: flows admitted on"
              + " reused grants may go unrecorded: {}",
          settings.tag(),
          e.getMessage());
      return;
    }
    int found = 0;
    for (Flow f : marked) {
      // a marked entry of a flow this firewall never heard of, still in its set: one it admitted
      if (!flows.containsKey(f) && serviceOf(f) != null && kernelSide.holds(f)) {
        admittedByKernel(f);
        found++;
      }
    }
    log.warn(
        "host firewall {}: conntrack events lost; {} flow(s) admitted on reused grants found in"
            + " its table",
        settings.tag(),
        found);
  }

  /**
   * On the kernel thread: flow {@code f}, admitted by the kernel on the grant reused for its client
   * address and service, becomes that grant's. Were that grant over by now (revoked, its last flow
   * gone, its address mapped to another subject since), the flow is ended at once.
   */
  private void admittedByKernel(Flow f) {
    if (flows.containsKey(f)) {
      return; // its SYN was queued again before this event came, and was decided then
    }
    Service s = serviceOf(f);
    if (s == null) {
      return; // the bit on another table's flow: not this firewall's
    }
    Grant g = reusing.get(new Endpoint(s, f.source()));
    if (g == null
        || byHandle.get(g.handle) != g
        || !g.subject.equals(settings.subjects().apply(f.source()))) {
      if (g != null) {
        stopReuse(g);
      }
      Endpoint ep = new Endpoint(s, f.source());
      counters.admittedAfterGrant.incrementAndGet();
      kernelSide.end(
          List.of(f), allowedAt.containsKey(ep) ? List.of() : List.of(f), drainReuseEnding());
      audit.ended(
          g == null ? null : g.handle, g == null ? null : g.subject, s.name(), f, "grant-over");
      log.info("host firewall: {} admitted on a grant that was over: ended", f);
      return;
    }
    Tracked t = new Tracked(f, g);
    flows.put(f, t);
    g.flows.add(t);
    audit.allowedOnGrant(g.handle, g.subject, g.service.name(), f);
    counters.allowedOnGrant.incrementAndGet();
    counters.admittedInKernel.incrementAndGet();
    allow(t);
  }

  /** The grants' reuse to end now, taken (for {@link FirewallKernel#end}'s first transaction). */
  private List<Flow> drainReuseEnding() {
    List<Flow> out = List.copyOf(reuseEnding);
    reuseEnding.clear();
    return out;
  }

  /** Until when (System.nanoTime) an Install's validity lets its grant be reused; 0: not at all. */
  private static long validUntil(PepDecision d) {
    Long validFor = d.data() != null ? d.data().validForSeconds() : null;
    return validFor == null || validFor == 0
        ? 0
        : System.nanoTime() + TimeUnit.SECONDS.toNanos(validFor);
  }

  /**
   * On the kernel thread: the PDP changed the Install of {@code handle} (a reload, a fleet member's
   * decision): its grant is reused under the new validity from now, or no more when it has none.
   */
  private void reinstalled(String handle, PepDecision d) {
    Grant g = byHandle.get(handle);
    if (g != null) {
      g.validUntil = validUntil(d);
      if (g.validUntil == 0) {
        stopReuse(g);
      } else if (!g.flows.isEmpty()) {
        reuseInKernel(g); // the kernel's reuse follows it: longer or shorter
      }
    }
  }

  /**
   * On the kernel thread: {@code t}'s waiting packets accepted with the firewall's mark bit, so the
   * rule after the queue adds the flow to the set in the kernel, with the packet: no command, and
   * no moment when the flow's next packet could come before its element.
   */
  private void allow(Tracked t) {
    if (!t.allowed) {
      allowedAt.merge(new Endpoint(t.grant.service, t.flow.source()), 1, Integer::sum);
    }
    t.allowed = true;
    counters.flows.incrementAndGet();
    for (QueuedPacket p : t.waiting) {
      kernelSide.verdict(p, true);
    }
    t.waiting.clear();
    expireLater(t);
    log.debug("host firewall: {} allowed", t.flow);
  }

  /** On the kernel thread: {@code t}'s waiting packets dropped, the flow forgotten. */
  private void deny(Tracked t) {
    if (!t.allowed) {
      counters.denied.incrementAndGet(); // refused; an allowed flow that ends was counted ended
    }
    for (QueuedPacket p : t.waiting) {
      kernelSide.verdict(p, false);
    }
    t.waiting.clear();
    forget(t);
    log.debug("host firewall: {} denied", t.flow);
  }

  /** Forgets {@code g}, deleting its request state at the PDP ({@code reason} null: not sent). */
  private void drop(Grant g, dev.portcullis.cops.ReasonCode reason) {
    stopReuse(g);
    grants.remove(g.key(), g);
    if (!byHandle.remove(g.handle, g)) {
      return; // dropped already
    }
    if (reason != null) {
      pep.delete(g.handle, reason);
    }
    if (sessions.carries(g.subject)) {
      sessions.grantDropped(g.subject); // the last one logs the subject out
    }
  }

  /** Looks at {@code t} again once its validity has passed. */
  private void expireLater(Tracked t) {
    Timebase.SYSTEM.schedule(
        kernel, () -> expire(t), settings.grantValidity().toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * On the kernel thread: the validity has passed since {@code t} was allowed or last looked at.
   * Its element still there means packets renewed it: looked at again later. Gone (no packet for
   * the whole validity: the flow ended, or stalled): forgotten, and its request state deleted at
   * the PDP, so neither side keeps state for flows that are over.
   */
  private void expire(Tracked t) {
    if (flows.get(t.flow) != t || closing) {
      return;
    }
    if (kernelSide.holds(t.flow)) {
      expireLater(t);
      return;
    }
    try {
      // so that the flow's next packet is a new flow's again (a UDP flow's: to the queue)
      kernelSide.forgetConnection(t.flow);
    } catch (IOException e) {
      log.warn("host firewall: {}: conntrack entry not deleted: {}", t.flow, e.getMessage());
    }
    forget(t);
    admittedByKernel(); // flows the kernel admitted on the grant meanwhile count before "last"
    boolean last = t.grant.flows.isEmpty() && !t.grant.asking;
    if (last) {
      stopReuse(t.grant); // its reuse ends before its element does: none would add it again
      endReuse();
    }
    if (!allowedAt.containsKey(new Endpoint(t.grant.service, t.flow.source()))) {
      kernelSide.forgetGrant(t.flow); // its last flow: the kernel's element of it goes too
    }
    counters.idle.incrementAndGet();
    audit.ended(t.grant.handle, t.grant.subject, t.grant.service.name(), t.flow, "idle");
    if (last) {
      drop(t.grant, dev.portcullis.cops.ReasonCode.TIMEOUT);
    }
    log.debug("host firewall: {} ended: no packet for {}", t.flow, settings.grantValidity());
  }

  /**
   * On the kernel thread: the PDP is gone. New flows are refused until one is back (their requests
   * fail); with {@code closeOnPdpLoss} every allowed flow ends too, and its grant with it.
   */
  private void pdpLost(dev.portcullis.pep.PepException reason) {
    if (!settings.closeOnPdpLoss()) {
      log.warn(
          "host firewall {}: PDP lost ({}): new flows refused, {} allowed flow(s) go on",
          settings.tag(),
          reason == null ? "closed" : reason.getMessage(),
          flows.size());
      return;
    }
    log.warn(
        "host firewall {}: PDP lost ({}): every allowed flow ends, new flows refused",
        settings.tag(),
        reason == null ? "closed" : reason.getMessage());
    // every grant's flows ended at once: one ss and one transaction of each kind for them all,
    // not one of each per grant (a transaction is 0.3 ms idle, 5-15 ms under load here; an ss
    // process more)
    List<Tracked> ending = new ArrayList<>();
    for (Grant g : List.copyOf(byHandle.values())) {
      drop(g, dev.portcullis.cops.ReasonCode.MANAGEMENT); // not asked for again on reconnect
      ending.addAll(g.flows);
    }
    endAll(ending, "pdp-lost");
  }

  /**
   * On the kernel thread: a Remove for {@code handle}: every flow under that grant ends in the
   * kernel at once.
   */
  private void revoke(String handle, PepDecision d) {
    if (sessions.isSession(handle)) {
      // the subject's session removed: every flow of the subject ends (the PDP removes their
      // decisions too; their Removes then find nothing left)
      String subject = sessions.removed(handle, d);
      List<Tracked> ending = new ArrayList<>();
      for (Grant g : List.copyOf(byHandle.values())) {
        if (g.subject.equals(subject)) {
          drop(g, dev.portcullis.cops.ReasonCode.TEAR);
          ending.addAll(g.flows);
        }
      }
      endAll(ending, "session-removed");
      return;
    }
    Grant g = byHandle.get(handle);
    if (g == null) {
      return;
    }
    // the PDP removed it; its request state is deleted as the proxy's is when it cuts, so neither
    // side keeps a handle for a grant that is over (before, each revoked grant stayed a handle at
    // the PDP, counted against max-handles, and in the PEP's installed state)
    drop(g, dev.portcullis.cops.ReasonCode.TEAR);
    endAll(g.flows, "remove");
  }

  /**
   * Ends {@code flows} (all of one or more grants'): the allowed ones in the kernel at once ({@link
   * FirewallKernel#end}: their grants' and their own elements, conntrack entries and sockets),
   * audited; each flow forgotten, its waiting packets dropped.
   */
  private void endAll(List<Tracked> flows, String why) {
    List<Tracked> all = List.copyOf(flows);
    List<Tracked> allowed = all.stream().filter(t -> t.allowed).toList();
    if (!allowed.isEmpty()) {
      // the kernel first, the records after: nothing crosses while they are written
      FirewallKernel.Ended e =
          kernelSide.end(
              allowed.stream().map(t -> t.flow).toList(),
              endingGrants(allowed),
              drainReuseEnding());
      counters.revoked.addAndGet(allowed.size());
      for (Tracked t : allowed) {
        audit.ended(t.grant.handle, t.grant.subject, t.grant.service.name(), t.flow, why);
      }
      log.info(
          "host firewall: {} flow(s) ended in the kernel ({}): their grants' elements {} ms,"
              + " conntrack and sockets {} ms, the flows' elements {} ms",
          allowed.size(),
          why,
          ms(e.grantsNanos()),
          ms(e.connectionsNanos()),
          ms(e.elementsNanos()));
    }
    for (Tracked t : all) {
      deny(t);
    }
  }

  /**
   * A flow of each client address and service whose allowed flows are all in {@code ending}: the
   * grants' elements the kernel deletes. One with other allowed flows (another subject's, mapped
   * from the same address since) keeps its element; its ending flows' own elements go.
   */
  private List<Flow> endingGrants(List<Tracked> ending) {
    Map<Endpoint, Integer> counts = new HashMap<>();
    Map<Endpoint, Flow> first = new HashMap<>();
    for (Tracked t : ending) {
      Endpoint e = new Endpoint(t.grant.service, t.flow.source());
      counts.merge(e, 1, Integer::sum);
      first.putIfAbsent(e, t.flow);
    }
    List<Flow> out = new ArrayList<>(first.size());
    for (Map.Entry<Endpoint, Flow> e : first.entrySet()) {
      if (counts.get(e.getKey()).equals(allowedAt.get(e.getKey()))) {
        out.add(e.getValue());
      }
    }
    return out;
  }

  private static String ms(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e6);
  }

  private void forget(Tracked t) {
    if (flows.remove(t.flow, t) && t.allowed) {
      counters.flows.decrementAndGet();
      allowedAt.computeIfPresent(
          new Endpoint(t.grant.service, t.flow.source()), (k, n) -> n == 1 ? null : n - 1);
    }
    t.grant.flows.remove(t);
  }

  /**
   * Says that {@link Settings#subjects} may now map some address to another subject (a library
   * user's mapping that changes): the kernel stops admitting flows on reused grants at once, so
   * each address's next flow is queued and mapped again. Flows already allowed go on. Without it, a
   * flow the kernel admitted on the grant of the address's earlier subject is ended as soon as the
   * firewall hears of it (its first packets may have crossed).
   */
  public void subjectsChanged() {
    onKernel(
        () -> {
          for (Grant g : List.copyOf(reusing.values())) {
            stopReuse(g);
          }
        });
  }

  /** What this firewall enforces. */
  public Settings settings() {
    return settings;
  }

  /** What it did. */
  public FirewallCounters counters() {
    return counters;
  }

  /** The PEP that asks the PDP for it. */
  public PepClient pep() {
    return pep;
  }

  /** Why the queue cannot take new flows now (its reader gone, the firewall closing), or null. */
  public String queueTrouble() {
    String failed = queueFailure;
    return closing ? "closing" : failed != null ? "the queue failed: " + failed : null;
  }

  /**
   * Reads the kernel's drops on this firewall's queue (the queue full, or no reader) into {@link
   * FirewallCounters#kernelDropped}, from {@code /proc/net/netfilter/nfnetlink_queue} of the kernel
   * thread's namespace; waits at most a second for that thread.
   */
  public void refreshKernelCounters() {
    try {
      onKernelAndWait(
          () -> {
            counters.kernelDropped.set(FirewallKernel.kernelDrops(settings.queue()));
            return null;
          },
          1);
    } catch (Exception e) {
      log.debug("host firewall {}: kernel counters not read: {}", settings.tag(), e.toString());
    }
  }

  /** Flows allowed now (for tests and the stats line). */
  public int allowedFlows()
      throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
    return onKernelAndWait(() -> (int) flows.values().stream().filter(t -> t.allowed).count(), 30);
  }

  /**
   * Stops reading (new flows find no reader: dropped), removes the rules and the table (flows
   * allowed so far then pass as any unprotected traffic would: the host's own rules decide).
   */
  @Override
  public void close() {
    if (closing) {
      return; // closed already (or closing: the first caller takes it down)
    }
    closing = true; // the kernel thread's read stops at its next turn
    try {
      onKernelAndWait(
          () -> {
            if (kernelSide != null) {
              kernelSide.close();
            }
            return null;
          },
          15);
    } catch (Exception e) {
      log.warn("host firewall {}: not all taken down: {}", settings.tag(), e.toString());
    } finally {
      kernel.shutdownNow();
    }
  }
}
