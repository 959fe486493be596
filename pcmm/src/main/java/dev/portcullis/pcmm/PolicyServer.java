package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.pcmm.GateRefusedException.Kind;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.NettySetup;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PacketCable Multimedia policy server: it keeps a connection to each of its CMTSs, asks its
 * {@link GatePolicy} before each Gate-Set, files the gates the CMTSs acknowledge, deletes those the
 * policy no longer allows ({@link #reevaluate()}), and after a CMTS reconnects asks it for each
 * gate it held there (Gate-Info), forgetting those the CMTS no longer has.
 *
 * <p>Ready once every CMTS has opened and sent its REQ; a CMTS that is down is connected again with
 * back-off, and its gates are refused meanwhile (the others are not affected).
 */
public final class PolicyServer implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(PolicyServer.class);

  /**
   * The KA timer sent in each Client-Accept (seconds; the CMTS sends keep-alives within it and a
   * connection silent for as long is closed), how long an answer may take, the reconnect back-off,
   * and the PSID this server gives CMTSs of later issues than I02 in its PDP-Config (the gates a
   * Synch-Request lists are those set under it; a fleet's members share it).
   */
  public record Settings(
      int kaSeconds,
      Duration answerTimeout,
      Duration reconnectMin,
      Duration reconnectMax,
      int psid) {
    public static final Settings DEFAULTS =
        new Settings(30, Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofSeconds(30));

    public Settings {
      if (kaSeconds < 1 || kaSeconds > 0xFFFF) {
        throw new IllegalArgumentException("KA timer: " + kaSeconds + " s (expected: 1 to 65535)");
      }
      Objects.requireNonNull(answerTimeout, "answerTimeout");
    }

    /** With PSID 1. */
    public Settings(
        int kaSeconds, Duration answerTimeout, Duration reconnectMin, Duration reconnectMax) {
      this(kaSeconds, answerTimeout, reconnectMin, reconnectMax, 1);
    }
  }

  private final GatePolicy policy;
  private final Settings settings;
  private final Clock clock;
  private final EventLoopGroup group;
  private final Map<String, CmtsLink> links = new LinkedHashMap<>();
  private final List<GateListener> listeners = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  private final GateBooks books;
  private volatile GateJournal journal = GateJournal.NONE;
  private final GateSetsInDoubt doubts;

  private PolicyServer(
      Map<String, InetSocketAddress> cmtss, GatePolicy policy, Settings settings, Clock clock) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.settings = settings;
    this.clock = Objects.requireNonNull(clock, "clock");
    if (cmtss.isEmpty()) {
      throw new IllegalArgumentException("policy server: no CMTS (expected: at least one)");
    }
    NettySetup.beforeNetty();
    Transport t = Transport.best();
    // one loop owns every link and the books: a Gate-Set continued from a CMTS's answer is filed,
    // sent and settled without a hand-over (docs/pcmm.md: the books on a thread of their own
    // beside a loop per core cost a fifth more CPU per Gate-Set, on one loop a tenth; one loop
    // sets 22,000 gates a second)
    this.group = t.group(1);
    Bootstrap b = new Bootstrap().group(group).channel(t.socketChannel());
    this.books = new GateBooks(group.next());
    this.doubts = new GateSetsInDoubt(books, settings.answerTimeout(), () -> journal);
    CmtsLink.Events events =
        new CmtsWatch(this, books, listeners, cmtss.size(), () -> ready.complete(null), clock);
    cmtss.forEach(
        (name, address) ->
            links.put(name, new CmtsLink(name, address, b, group.next(), settings, clock, events)));
  }

  /** Connects to every CMTS; {@link #ready()} completes when all have opened. */
  public static PolicyServer start(
      Map<String, InetSocketAddress> cmtss, GatePolicy policy, Settings settings) {
    return start(cmtss, policy, settings, Clock.systemUTC());
  }

  /**
   * As {@link #start(Map, GatePolicy, Settings)}, with the wall clock that paces its log summaries
   * (tests move it).
   */
  public static PolicyServer start(
      Map<String, InetSocketAddress> cmtss, GatePolicy policy, Settings settings, Clock clock) {
    PolicyServer s = new PolicyServer(cmtss, policy, settings, clock);
    s.links.values().forEach(CmtsLink::connect);
    return s;
  }

  /**
   * A fleet member's server: it connects to no CMTS until it {@link #adopt}s one, and records each
   * Gate-Set in {@code journal} before it leaves.
   */
  static PolicyServer member(
      Map<String, InetSocketAddress> cmtss,
      GatePolicy policy,
      Settings settings,
      GateJournal journal,
      Clock clock) {
    PolicyServer s = new PolicyServer(cmtss, policy, settings, clock);
    s.journal = journal;
    return s;
  }

  /**
   * Takes {@code cmts} over with the gates a predecessor recorded, and the Gate-Sets it sent whose
   * answers it never recorded (in doubt, by intent): connects, then asks the CMTS for each gate
   * (Gate-Info), forgetting those it no longer has. No Gate-Set is sent again.
   */
  void adopt(String cmts, List<Gate> gates, Map<String, GateRequest> inDoubt) {
    List<CompletableFuture<?>> filed = new ArrayList<>();
    filed.add(
        books.change(
            () -> {
              for (Gate g : gates) {
                if (books.fileIfAbsentHere(g) != null) {
                  log.warn("{}: recorded twice in the fleet's store; filed once", g);
                }
              }
              return null;
            }));
    inDoubt.forEach(
        (intent, r) -> filed.add(doubts.file(new Gate(cmts, 0, r, Gate.IN_DOUBT), intent)));
    // connected once all of it is filed, for its watch checks what the books hold then
    awaitBooks(CompletableFuture.allOf(filed.toArray(CompletableFuture[]::new)));
    link(cmts).hold();
  }

  /**
   * Waits for a change of the books, for the fleet's thread (which adopts and gives up CMTSs and
   * waits on the store as it does), never for an event loop.
   */
  private static void awaitBooks(CompletableFuture<?> change) {
    try {
      change.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the PCMM books changed", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the PCMM books did not change: " + e, e);
    }
  }

  /** Gives {@code cmts} up (another member takes it): its connection closed, its gates unfiled. */
  void release(String cmts) {
    link(cmts).close();
    awaitBooks(books.unfileAll(cmts));
    log.info("CMTS {}: given up", cmts);
  }

  public void addListener(GateListener l) {
    listeners.add(l);
  }

  /** The CMTSs, by name. */
  public List<String> cmtss() {
    return List.copyOf(links.keySet());
  }

  /** The most gate control transactions outstanding at once on {@code cmts}'s connection now. */
  int mostOutstanding(String cmts) {
    return link(cmts).mostOutstanding();
  }

  /** What {@code cmts} has shown of itself: its PCMM version, deviations, unanswered commands. */
  PeerStats peer(String cmts) {
    return link(cmts).stats();
  }

  /** True while {@code cmts} is connected and has sent its REQ. */
  public boolean isReady(String cmts) {
    CmtsLink l = links.get(cmts);
    return l != null && l.isReady();
  }

  /**
   * Asks the policy, then the CMTS, for a gate: completes with the gate the CMTS acknowledged, or
   * fails with {@link GateRefusedException} (denied by the policy, an -Err from the CMTS, no
   * answer, no connection).
   */
  public CompletableFuture<Gate> set(String cmts, GateRequest request) {
    CmtsLink link = link(cmts);
    Gate inFlight = new Gate(cmts, 0, request, 0);
    // counted against the subscriber's limits until answered
    return books
        .reserve(inFlight, policy)
        .exceptionally(e -> failed("a Gate-Set for", request, e))
        .thenCompose(v -> reserved(link, inFlight, v));
  }

  /** After the policy's verdict {@code v} on {@code inFlight} (null: in doubt). */
  private CompletableFuture<Gate> reserved(CmtsLink link, Gate inFlight, GatePolicy.Verdict v) {
    String cmts = inFlight.cmts();
    GateRequest request = inFlight.request();
    if (v == null || !v.allowed()) {
      // before anything leaves: the same flows in doubt, or the policy's no
      String why =
          v == null
              ? "a Gate-Set for the same flows on " + cmts + " is in doubt (its answer was lost)"
              : "denied by policy: " + v.reason();
      listeners.forEach(l -> l.refused(cmts, request, why));
      return CompletableFuture.failedFuture(
          new GateRefusedException(
              v == null ? Kind.IN_DOUBT : Kind.POLICY,
              "Gate-Set for " + request.subscriber().address().getHostAddress() + " " + why,
              null));
    }
    listeners.forEach(l -> l.allowed(cmts, request, v.reason()));
    GateJournal j = journal;
    if (j == GateJournal.NONE) {
      return link.exchange(GateCommand.GATE_SET, request.gateSetObjects(null))
          .handle((m, e) -> answered(inFlight, v, null, m, e))
          .thenCompose(f -> f);
    }
    // write-ahead: the intent is durable before the Gate-Set leaves, or it does not leave
    AtomicReference<String> intent = new AtomicReference<>();
    return j.intend(cmts, request)
        .thenCompose(
            id -> {
              intent.set(id);
              return link.exchange(GateCommand.GATE_SET, request.gateSetObjects(null));
            })
        .handle((m, e) -> answered(inFlight, v, intent.get(), m, e))
        .thenCompose(f -> f);
  }

  /**
   * The gate a Gate-Set's answer (or failure) makes, filed and told; else the refusal it fails
   * with.
   */
  private CompletableFuture<Gate> answered(
      Gate inFlight, GatePolicy.Verdict v, String intent, GateMessage m, Throwable e) {
    String cmts = inFlight.cmts();
    boolean ack = e == null && m.command() == GateCommand.GATE_SET_ACK && m.gateId() != null;
    if (ack && m.gateId().id() != 0) {
      Gate g = new Gate(cmts, m.gateId().id(), inFlight.request(), PcmmObject.GateState.AUTHORIZED);
      // one change: the Gate-Set out of flight, its gate in
      return books
          .settle(inFlight, g)
          .thenApply(
              held -> {
                if (held == null) {
                  journal.resolved(intent, g);
                  listeners.forEach(l -> l.set(g, v.reason()));
                  return g;
                }
                // the CMTS gave an ID it had given for a gate held here: never file a gate twice
                throw refused(
                    inFlight,
                    intent,
                    new GateRefusedException(
                        Kind.CMTS,
                        "Gate-Set: CMTS "
                            + cmts
                            + " acknowledged with the ID of "
                            + held
                            + " again",
                        null));
              });
    }
    Throwable refusal = refusal(cmts, ack, m, e);
    // the gate may exist: the same flows wait until it is found (a synchronisation after the
    // reconnect) or its T1 is over, rather than risk a second gate; in one change with its
    // leaving flight, so that no Gate-Set for the same flows slips in between
    boolean mayExist =
        refusal instanceof GateRefusedException r
            && (r.kind() == Kind.NO_ANSWER || r.kind() == Kind.UNREADABLE);
    return books
        .change(
            () -> {
              books.unfileHere(inFlight);
              if (mayExist) {
                doubts.fileHere(inFlight, intent);
              }
              return null;
            })
        .thenApply(
            x -> {
              throw refused(inFlight, mayExist ? null : intent, refusal);
            });
  }

  /** Why a Gate-Set that made no gate failed. */
  private static Throwable refusal(String cmts, boolean ack, GateMessage m, Throwable e) {
    // an ID of 0 is no gate: these books (and an application) could not tell it from a Gate-Set
    // in flight, nor delete it by ID; the CMTS's gate, if any, is left to its own timers
    return e != null
        ? GateRefusedException.cause(e)
        : ack
            ? new GateRefusedException(
                Kind.CMTS,
                "Gate-Set: CMTS " + cmts + " acknowledged with Gate ID 0, which names no gate",
                null)
            : m.command() == GateCommand.GATE_SET_ERR
                ? GateRefusedException.byCmts("Gate-Set", cmts, m.error())
                : new GateRefusedException(
                    Kind.CMTS, "Gate-Set: CMTS " + cmts + " answered " + m, null);
  }

  /**
   * A Gate-Set that made no gate, told; its intent ({@code null}: none, or kept in doubt) resolved
   * as nothing; the exception to fail with.
   */
  private CompletionException refused(Gate inFlight, String intent, Throwable refusal) {
    String cmts = inFlight.cmts();
    GateRequest request = inFlight.request();
    if (intent != null) {
      journal.resolved(intent, null);
    }
    String why = GateRefusedException.why(refusal);
    listeners.forEach(l -> l.refused(cmts, request, why));
    return new CompletionException(refusal);
  }

  /**
   * Changes what {@code gate} authorizes (its Gate Spec, traffic profile, classifiers, extras) to
   * {@code changed}, for the same subscriber and application manager: the policy decides the new
   * request (the gate itself not counted against the subscriber's limits), then a Gate-Set with the
   * Gate ID. Completes with the gate as the CMTS now holds it; on a refusal the gate stays as it
   * was.
   */
  public CompletableFuture<Gate> modify(Gate gate, GateRequest changed) {
    if (!changed.subscriber().equals(gate.request().subscriber())
        || !changed.amid().equals(gate.request().amid())) {
      throw new IllegalArgumentException(
          gate
              + ": a modification keeps the subscriber and the AMID (expected "
              + gate.request().subscriber().address().getHostAddress()
              + ", "
              + gate.request().amid()
              + ")");
    }
    return books
        .decideChange(gate, changed, policy)
        .exceptionally(e -> failed("a Gate-Set for", changed, e))
        .thenCompose(v -> changeDecided(gate, changed, v));
  }

  /** After the policy's verdict {@code v} on a change of {@code gate} (null: not held). */
  private CompletableFuture<Gate> changeDecided(
      Gate gate, GateRequest changed, GatePolicy.Verdict v) {
    if (v == null) {
      return CompletableFuture.failedFuture(
          new GateRefusedException(
              Kind.NOT_HELD, gate + " is not held here (deleted, or changed since)", null));
    }
    if (!v.allowed()) {
      String why = "denied by policy: " + v.reason();
      listeners.forEach(l -> l.refused(gate.cmts(), changed, why));
      return CompletableFuture.failedFuture(
          new GateRefusedException(Kind.POLICY, "change of " + gate + " " + why, null));
    }
    listeners.forEach(l -> l.allowed(gate.cmts(), changed, v.reason()));
    return link(gate.cmts())
        .exchange(
            GateCommand.GATE_SET, changed.gateSetObjects(new PcmmObject.GateId(gate.gateId())))
        .thenCompose(
            m -> {
              if (m.command() != GateCommand.GATE_SET_ACK
                  || m.gateId() == null
                  || m.gateId().id() != gate.gateId()) {
                GateRefusedException r =
                    m.command() == GateCommand.GATE_SET_ERR
                        ? GateRefusedException.byCmts("Gate-Set (change)", gate.cmts(), m.error())
                        : new GateRefusedException(
                            Kind.CMTS,
                            "Gate-Set (change): CMTS " + gate.cmts() + " answered " + m,
                            null);
                listeners.forEach(l -> l.refused(gate.cmts(), changed, r.getMessage()));
                throw new CompletionException(r);
              }
              Gate now = new Gate(gate.cmts(), gate.gateId(), changed, gate.state());
              return books
                  .replace(gate, now)
                  .thenApply(
                      replaced -> {
                        if (!replaced) {
                          // deleted meanwhile (a policy change, the CMTS's own report): not filed
                          // again
                          throw new CompletionException(
                              new GateRefusedException(
                                  Kind.NOT_HELD, gate + " ended while it was being changed", null));
                        }
                        listeners.forEach(l -> l.modified(gate, now, v.reason()));
                        return now;
                      });
            });
  }

  /** Deletes {@code gate} on its CMTS; a CMTS that no longer has it counts as deleted. */
  public CompletableFuture<Void> delete(Gate gate, String reason) {
    return link(gate.cmts())
        .exchange(GateCommand.GATE_DELETE, idObjects(gate))
        .thenCompose(
            m -> {
              boolean gone =
                  m.command() == GateCommand.GATE_DELETE_ACK
                      || (m.command() == GateCommand.GATE_DELETE_ERR
                          && m.error() != null
                          && m.error().code() == PcmmErrorCode.UNKNOWN_GATE_ID.code());
              if (!gone) {
                throw new CompletionException(
                    m.command() == GateCommand.GATE_DELETE_ERR
                        ? GateRefusedException.byCmts("Gate-Delete", gate.cmts(), m.error())
                        : new GateRefusedException(
                            Kind.CMTS,
                            "Gate-Delete: CMTS " + gate.cmts() + " answered " + m,
                            null));
              }
              return books
                  .unfile(gate)
                  .thenAccept(
                      had -> {
                        if (had) {
                          listeners.forEach(l -> l.deleted(gate, reason));
                        }
                      });
            });
  }

  /** The Gate-Sets in doubt on {@code cmts}, and what finds them (a synchronisation). */
  GateSetsInDoubt inDoubt() {
    return doubts;
  }

  /** The link to {@code cmts}, for its watcher. */
  CmtsLink linkTo(String cmts) {
    return link(cmts);
  }

  /** Asks the CMTS for {@code gate} (Gate-Info); completes with its answer, -Ack or -Err. */
  public CompletableFuture<GateMessage> info(Gate gate) {
    return link(gate.cmts()).exchange(GateCommand.GATE_INFO, idObjects(gate));
  }

  /** The gates held now, on every CMTS. */
  public List<Gate> gates() {
    return books.all();
  }

  /** The gates held now on {@code cmts}. */
  public List<Gate> gates(String cmts) {
    return books.of(cmts);
  }

  /**
   * Decides every gate again and deletes, at once and all together, those the policy no longer
   * allows; completes with how many were deleted once every CMTS has answered.
   */
  public CompletableFuture<Integer> reevaluate() {
    return reevaluate(g -> true);
  }

  /**
   * As {@link #reevaluate()} for the gates {@code affected} selects only: after a change that
   * touches some subscribers (one revoked, one's limits changed), exactly their gates are decided
   * again.
   */
  public CompletableFuture<Integer> reevaluate(Predicate<Gate> affected) {
    return books
        .doomed(
            affected,
            (g, others) -> {
              CompletableFuture<GatePolicy.Verdict> v;
              try {
                v = policy.decideAsync(g.request(), others).toCompletableFuture();
              } catch (RuntimeException e) {
                v = CompletableFuture.failedFuture(e);
              }
              return v.handle(
                  (verdict, e) -> {
                    if (e != null) {
                      // a policy that cannot decide takes no gate away: the gate stays, and the
                      // failure is said (a new Gate-Set would be refused)
                      log.warn("{}: kept, the policy failed deciding it again: {}", g, cause(e));
                      return null;
                    }
                    return verdict.allowed()
                        ? null
                        : "policy no longer allows it: " + verdict.reason();
                  });
            })
        .thenCompose(this::deleteDoomed);
  }

  private CompletableFuture<Integer> deleteDoomed(Map<Gate, String> why) {
    List<Gate> doomed = new ArrayList<>(why.keySet());
    if (!doomed.isEmpty()) {
      log.info("policy change: deleting {} gates it no longer allows", doomed.size());
    }
    CompletableFuture<?>[] all = new CompletableFuture<?>[doomed.size()];
    for (int i = 0; i < all.length; i++) {
      Gate g = doomed.get(i);
      all[i] =
          delete(g, why.get(g))
              .exceptionally(
                  e -> {
                    log.warn(
                        "{}: not deleted after a policy change: {}",
                        g,
                        GateRefusedException.why(e));
                    return null;
                  });
    }
    return CompletableFuture.allOf(all).thenApply(x -> doomed.size());
  }

  /**
   * The verdict of a policy that failed (threw, or its stage failed): denied (fails closed), with
   * the failure logged.
   */
  private GatePolicy.Verdict failed(String what, GateRequest request, Throwable e) {
    Throwable c = cause(e);
    log.warn(
        "policy failed deciding {} {}; refused: {}",
        what,
        request.subscriber().address().getHostAddress(),
        c.toString());
    return GatePolicy.Verdict.deny("the policy failed: " + c);
  }

  private static Throwable cause(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  private List<PcmmObject> idObjects(Gate g) {
    return List.of(g.request().amid(), g.request().subscriber(), new PcmmObject.GateId(g.gateId()));
  }

  private CmtsLink link(String cmts) {
    CmtsLink l = links.get(cmts);
    if (l == null) {
      throw new IllegalArgumentException(
          "no CMTS named " + cmts + " (expected one of " + links.keySet() + ")");
    }
    return l;
  }

  @Override
  public CompletableFuture<Void> ready() {
    return ready;
  }

  @Override
  public boolean isReady() {
    return ready.isDone()
        && !stopped.isDone()
        && links.values().stream().allMatch(CmtsLink::isReady);
  }

  @Override
  public CompletableFuture<Void> stopped() {
    return stopped;
  }

  @Override
  public void close() {
    if (stopped.isDone()) {
      return;
    }
    links.values().forEach(CmtsLink::close);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    stopped.complete(null);
  }
}
