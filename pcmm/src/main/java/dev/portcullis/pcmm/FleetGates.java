package dev.portcullis.pcmm;

import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.Versioned;
import dev.portcullis.support.Threads;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fleet of policy servers sharing their CMTSs through a {@link StateStore} (ZooKeeper, as the
 * PDPs' fleets do; docs/pcmm.md, "Fleets"). Each CMTS belongs to one member at a time, which alone
 * connects to it and sets gates there; its gates and the Gate-Sets it is sending are in the store,
 * so that when the member is gone (its lease ends) another takes the CMTS over with them:
 *
 * <pre>
 * /pcmm/members/MEMBER         leased   the member's HTTP endpoint (host:port), or empty
 * /pcmm/owners/CMTS            leased   the member holding the CMTS
 * /pcmm/gates/CMTS/GATE-ID     durable  a gate the CMTS acknowledged (PCMM objects, below)
 * /pcmm/intents/CMTS/MILLIS-N  durable  a Gate-Set about to leave, until its answer is recorded
 * </pre>
 *
 * A gate is never set twice by the fleet: no member sends a Gate-Set again for a gate it takes over
 * (it asks the CMTS for each, Gate-Info), and no Gate-Set leaves before its intent is durable. An
 * intent left behind (its member died, or its answer never came) is a Gate-Set in doubt: the member
 * holding the CMTS counts it against the subscriber and refuses the same flows until the gate's T1
 * has run out. A member cut off from the store sets no gate (its intents cannot be written); one
 * whose session ended gives up its CMTSs at once, since another may hold them now.
 *
 * <p>Which member takes a free CMTS: the one ranked first by rendezvous hashing of member and CMTS
 * names, at once; any other after {@code claimDelay}, if it is still free. Records are the gate's
 * PCMM objects as on the wire (docs/cops-wire.md): Transaction ID (0, the Gate-Set-Ack or Gate-Set
 * command), AMID, Subscriber ID, Gate ID and Gate State (gates only), Gate Spec, the traffic
 * profile, the classifiers, the extras.
 */
final class FleetGates implements GateJournal, GateListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FleetGates.class);
  private static final String MEMBERS = "/pcmm/members";
  private static final String OWNERS = "/pcmm/owners";
  private static final String GATES = "/pcmm/gates";
  private static final String INTENTS = "/pcmm/intents";

  private final StateStore store;
  private final String member;
  private final String endpoint;
  private final Set<String> cmtss;
  private final Duration claimDelay;
  private final ScheduledExecutorService worker;
  private final Set<String> held = ConcurrentHashMap.newKeySet();
  private final Map<String, String> owners = new ConcurrentHashMap<>(); // CMTS -> member
  private final Map<String, String> endpoints = new ConcurrentHashMap<>(); // member -> host:port
  private final AtomicLong intents = new AtomicLong();
  private final CompletableFuture<Void> joined = new CompletableFuture<>();
  private volatile PolicyServer server;
  private volatile boolean closed;
  private final Clock clock;

  FleetGates(
      StateStore store,
      String member,
      String endpoint,
      Set<String> cmtss,
      Duration claimDelay,
      Clock clock) {
    this.clock = clock;
    this.store = store;
    this.member = member;
    this.endpoint = endpoint == null ? "" : endpoint;
    this.cmtss = Set.copyOf(cmtss);
    this.claimDelay = claimDelay;
    // every store operation of this member, in order, off the event loops
    this.worker = Threads.owner("pcmm-fleet");
  }

  /** Joins the fleet: announces the member, then takes the free CMTSs it ranks first for. */
  void join(PolicyServer s) {
    this.server = s;
    store.onConnectionChange(c -> later(() -> connection(c)));
    worker.execute(
        () -> {
          try {
            announce();
            store.watch(OWNERS, e -> later(() -> ownerChanged(e)));
            store.watch(MEMBERS, e -> later(() -> memberChanged(e)));
            joined.complete(null);
          } catch (StoreException e) {
            joined.completeExceptionally(e);
          }
        });
  }

  /** Completes when the member is in the fleet (or fails: the store could not be reached). */
  CompletableFuture<Void> joined() {
    return joined;
  }

  /** The CMTSs this member holds now. */
  Set<String> held() {
    return Set.copyOf(held);
  }

  /**
   * The HTTP endpoint of the member holding {@code cmts} ({@code host:port}), empty when it is
   * free, held here, or its member has no endpoint. From the watches: no I/O (the HTTP endpoint's
   * event loop asks).
   */
  Optional<String> ownerEndpoint(String cmts) {
    String m = owners.get(cmts);
    if (m == null || m.equals(member)) {
      return Optional.empty();
    }
    return Optional.ofNullable(endpoints.get(m)).filter(t -> !t.isEmpty());
  }

  private void announce() throws StoreException {
    store.putLeased(MEMBERS + "/" + member, endpoint.getBytes(StandardCharsets.UTF_8));
  }

  private void connection(StateStore.Connection c) {
    if (closed) {
      return;
    }
    if (c == StateStore.Connection.LOST) {
      // our leases are gone: another member may hold these CMTSs now; never both
      for (String cmts : List.copyOf(held)) {
        log.warn("CMTS {}: the fleet's store lost this member's session; giving it up", cmts);
        held.remove(cmts);
        server.release(cmts);
      }
    } else if (c == StateStore.Connection.RECONNECTED) {
      try {
        announce();
      } catch (StoreException e) {
        log.warn("fleet: cannot announce member {} again: {}", member, e.getMessage());
      }
      claimFree();
    }
  }

  private void ownerChanged(StoreEvent e) {
    watched(e, owners);
    if (e.kind() == StoreEvent.Kind.READY || e.kind() == StoreEvent.Kind.REMOVED) {
      claimFree();
    }
  }

  private void memberChanged(StoreEvent e) {
    watched(e, endpoints);
    claimFree();
  }

  /** Mirrors a watched directory's entries (by last path segment) into {@code into}. */
  private static void watched(StoreEvent e, Map<String, String> into) {
    if (e.path() == null) {
      return;
    }
    String name = e.path().substring(e.path().lastIndexOf('/') + 1);
    if (e.kind() == StoreEvent.Kind.PUT) {
      into.put(name, text(e.value()));
    } else if (e.kind() == StoreEvent.Kind.REMOVED) {
      into.remove(name);
    }
  }

  /** Claims each free CMTS this member ranks first for now, the others after the delay. */
  private void claimFree() {
    if (closed || !store.connection().up()) {
      return;
    }
    List<String> members;
    try {
      members = store.children(MEMBERS);
    } catch (StoreException e) {
      log.warn("fleet: cannot list members: {}", e.getMessage());
      return;
    }
    for (String cmts : cmtss) {
      if (held.contains(cmts)) {
        continue;
      }
      if (first(cmts, members)) {
        claim(cmts);
      } else {
        worker.schedule(() -> claim(cmts), claimDelay.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  /** Rendezvous hashing: the member whose hash with the CMTS's name is highest ranks first. */
  private boolean first(String cmts, List<String> members) {
    return members.stream()
        .max(Comparator.comparingInt((String m) -> mix((m + "/" + cmts).hashCode())))
        .map(member::equals)
        .orElse(true);
  }

  private static int mix(int h) {
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    return h ^ (h >>> 16);
  }

  /** Takes {@code cmts} if it is free: the lease first, then its gates and intents. */
  private void claim(String cmts) {
    if (closed || held.contains(cmts) || !store.connection().up()) {
      return;
    }
    try {
      if (!store.create(
          OWNERS + "/" + cmts,
          member.getBytes(StandardCharsets.UTF_8),
          StateStore.Lifetime.LEASED)) {
        return; // another member holds it
      }
      held.add(cmts);
      List<Gate> gates = new ArrayList<>();
      for (String id : store.children(GATES + "/" + cmts)) {
        Optional<Versioned> v = store.read(GATES + "/" + cmts + "/" + id);
        if (v.isPresent()) {
          gates.add(GateRecords.gate(cmts, v.get().data()));
        }
      }
      Map<String, GateRequest> inDoubt = new LinkedHashMap<>();
      for (String name : store.children(INTENTS + "/" + cmts)) {
        Optional<Versioned> v = store.read(INTENTS + "/" + cmts + "/" + name);
        if (v.isPresent()) {
          inDoubt.put(cmts + "/" + name, GateRecords.request(v.get().data()));
        }
      }
      server.adopt(cmts, gates, inDoubt);
      log.info(
          "CMTS {}: held here now, with {} gates and {} Gate-Sets in doubt from the fleet's store",
          cmts,
          gates.size(),
          inDoubt.size());
    } catch (StoreException | RuntimeException e) {
      log.warn("CMTS {}: not taken over: {}", cmts, e.getMessage());
      if (held.remove(cmts)) {
        server.release(cmts);
        try {
          store.delete(OWNERS + "/" + cmts, Versioned.ANY);
        } catch (StoreException x) {
          // the lease ends with the session
        }
      }
    }
  }

  // ---- the journal: on the worker, in order ----------------------------------------------------

  @Override
  public CompletableFuture<String> intend(String cmts, GateRequest request) {
    CompletableFuture<String> leaving =
        CompletableFuture.failedFuture(
            new GateRefusedException(
                GateRefusedException.Kind.UNAVAILABLE,
                "Gate-Set: not sent, this member is leaving the fleet",
                null));
    if (closed) {
      return leaving;
    }
    try {
      return intent(cmts, request);
    } catch (RejectedExecutionException e) {
      return leaving;
    }
  }

  private CompletableFuture<String> intent(String cmts, GateRequest request) {
    return CompletableFuture.supplyAsync(
        () -> {
          String name = clock.millis() + "-" + intents.incrementAndGet() + "-" + member;
          String why;
          try {
            if (held.contains(cmts)) {
              store.create(
                  INTENTS + "/" + cmts + "/" + name,
                  GateRecords.intent(request),
                  StateStore.Lifetime.DURABLE);
              return cmts + "/" + name;
            }
            why = "CMTS " + cmts + " is not held by this member";
          } catch (StoreException e) {
            why = e.getMessage();
          }
          throw new CompletionException(
              new GateRefusedException(
                  GateRefusedException.Kind.UNAVAILABLE,
                  "Gate-Set: not recorded in the fleet's store, not sent: " + why,
                  null));
        },
        worker);
  }

  @Override
  public void resolved(String intent, Gate gate) {
    later(
        () -> {
          try {
            if (gate != null
                && !store.create(
                    GATES + "/" + gate.cmts() + "/" + Integer.toHexString(gate.gateId()),
                    GateRecords.gate(gate),
                    StateStore.Lifetime.DURABLE)) {
              log.warn("{}: already recorded in the fleet's store; kept once", gate);
            }
            store.delete(INTENTS + "/" + intent, Versioned.ANY);
          } catch (StoreException e) {
            // the intent stays: whoever holds the CMTS next counts this Gate-Set as in doubt
            log.error(
                "{}: not recorded in the fleet's store ({}); in doubt for a member taking it over",
                gate != null ? gate : "a refused Gate-Set",
                e.getMessage());
          }
        });
  }

  @Override
  public void expired(String cmts, String intent) {
    later(() -> delete(INTENTS + "/" + intent));
  }

  // ---- the gates' records, as they change ------------------------------------------------------

  @Override
  public void modified(Gate was, Gate now, String reason) {
    later(() -> rewrite(now));
  }

  @Override
  public void stateChanged(Gate gate) {
    later(() -> rewrite(gate));
  }

  @Override
  public void deleted(Gate gate, String reason) {
    later(() -> delete(path(gate)));
  }

  @Override
  public void lost(Gate gate, String reason) {
    later(() -> delete(path(gate)));
  }

  private void rewrite(Gate g) {
    try {
      Optional<Versioned> v = store.read(path(g));
      if (v.isPresent()) {
        store.replace(path(g), GateRecords.gate(g), v.get().version());
      }
    } catch (StoreException e) {
      log.warn("{}: its change not recorded in the fleet's store: {}", g, e.getMessage());
    }
  }

  private void delete(String path) {
    try {
      store.delete(path, Versioned.ANY);
    } catch (StoreException e) {
      log.warn("fleet: {} not deleted from the store: {}", path, e.getMessage());
    }
  }

  private static String path(Gate g) {
    return GATES + "/" + g.cmts() + "/" + Integer.toHexString(g.gateId());
  }

  private static String text(Versioned v) {
    return new String(v.data(), StandardCharsets.UTF_8);
  }

  /** Runs {@code r} on the worker, in order; nothing once the member has left. */
  private void later(Runnable r) {
    try {
      worker.execute(r);
    } catch (RejectedExecutionException e) {
      log.debug("fleet: member {} has left; a store update not made", member);
    }
  }

  /** Leaves: the member's leases end with its store (closed by its owner), its CMTSs freed. */
  @Override
  public void close() {
    closed = true;
    worker.shutdown();
    try {
      worker.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
