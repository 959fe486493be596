package dev.portcullis.pdp.tunnel;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DecisionFlags;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.access.TunnelGrant;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pdp.connection.PepLink;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tunnel desk's books (docs/tunnels.md): the gateway agents standing by, the tunnels granted
 * with where each end stands, and the DECs that key, deliver and end them. {@link TunnelDesk}
 * decides; this keeps and carries out. Confined to the desk's thread: no locks.
 */
public final class TunnelBook {
  private static final Logger log = LoggerFactory.getLogger(TunnelBook.class);

  public static final int TYPE = TunnelRequest.CLIENT_TYPE;

  /** One end of a tunnel: the agent's connection and the handle the tunnel travels on. */
  public record End(PepLink conn, Handle handle, Context context) {
    String pep() {
      return conn.pepId();
    }
  }

  /**
   * An end's counters as its agent last reported them (an Accounting timer's report).
   *
   * @param bytesIn bytes that end received through the tunnel, or null if not said
   * @param at when the report came
   */
  public record Counted(Long bytesIn, Long bytesOut, Instant at) {}

  /**
   * A tunnel as the PDP sees it now (no key).
   *
   * @param since when it was granted
   * @param client the client end's last counters, or null before its first accounting report
   * @param gatewayCounted the gateway end's, or null
   */
  public record View(
      String id,
      String subject,
      String gateway,
      TunnelRequest.Objective objective,
      String clientState,
      String gatewayState,
      Instant until,
      Instant since,
      Counted client,
      Counted gatewayCounted) {}

  /** A granted tunnel. */
  public static final class Live {
    final TunnelAuthority.Granted granted;
    final End client;
    final End gateway;
    boolean held; // the client has its grant and holds it, loaded, until the gateway has its own
    ScheduledFuture<?> waiting;
    String clientState = "granted";
    String gatewayState = "keyed";
    final Instant since;
    Counted clientCounted;
    Counted gatewayCounted;

    Live(TunnelAuthority.Granted granted, End client, End gateway, Instant since) {
      this.granted = granted;
      this.client = client;
      this.gateway = gateway;
      this.since = since;
    }

    String id() {
      return granted.id();
    }
  }

  private final TunnelAuthority authority;
  private final Map<String, End> gateways = new HashMap<>();
  private final Map<String, Live> tunnels = new HashMap<>();

  public TunnelBook(TunnelAuthority authority) {
    this.authority = authority;
  }

  /** The agent standing by for {@code gateway}, or null. */
  public End gateway(String gateway) {
    return gateways.get(gateway);
  }

  /** The gateway whose agent stands by on {@code c}'s handle {@code handle}, or null. */
  public String gatewayAt(PepLink c, Handle handle) {
    for (Map.Entry<String, End> g : gateways.entrySet()) {
      if (g.getValue().conn() == c && g.getValue().handle().equals(handle)) {
        return g.getKey();
      }
    }
    return null;
  }

  /** {@code e} stands by for {@code gateway} now; returns the one it replaces, or null. */
  public End standBy(String gateway, End e) {
    return gateways.put(gateway, e);
  }

  /** The tunnel {@code id}, or null. */
  public Live get(String id) {
    return tunnels.get(id);
  }

  public void add(Live t) {
    tunnels.put(t.id(), t);
  }

  /** Ends the tunnels an end of which {@code matches}, with {@code reason} for each. */
  public void endWhere(Predicate<Live> matches, Function<Live, String> reason) {
    for (Live t : List.copyOf(tunnels.values())) {
      if (matches.test(t)) {
        end(t, reason.apply(t));
      }
    }
  }

  /** {@code c} is gone: it stands by for no gateway, its tunnels end at the other end. */
  public void gone(PepLink c) {
    gateways.values().removeIf(e -> e.conn() == c);
    endWhere(
        t -> t.client.conn() == c || t.gateway.conn() == c,
        t ->
            t.client.conn() == c
                ? "client agent " + t.client.pep() + " disconnected"
                : "gateway agent " + t.gateway.pep() + " disconnected");
  }

  /**
   * Both ends are keyed at once: the gateway's grant on its standing request, and the client's,
   * which it loads and holds (start: hold) until {@link #start}: the client's load overlaps the
   * gateway's, and its IKE still never races the gateway's configuration. Each grant is zeroed once
   * encoded.
   */
  public void key(Live t, TunnelGrant gateway, TunnelGrant client) {
    decide(t.gateway, false, true, gateway);
    gateway.zero();
    t.gateway.conn().audit("tunnel-key-issued", t.gateway.pep(), keyIssued(t, "gateway", gateway));
    decide(t.client, true, true, client.withStart(false));
    client.zero();
    t.held = true;
    t.client.conn().audit("tunnel-key-issued", t.client.pep(), keyIssued(t, "client", client));
  }

  private static Object[] keyIssued(Live t, String end, TunnelGrant g) {
    return new Object[] {
      "tunnel", t.id(), "end", end, "keying", g.certified() ? "certificates" : "pre-shared key"
    };
  }

  /** The gateway holds the tunnel: its client is told to start (initiate). */
  public void start(Live t) {
    if (t.waiting != null) {
      t.waiting.cancel(false);
    }
    t.held = false;
    decide(t.client, false, true, TunnelGrant.start(t.id()));
  }

  /** Ends those of {@code granted} still in the book, with {@code reason}. */
  public void ended(List<TunnelAuthority.Granted> granted, String reason) {
    for (TunnelAuthority.Granted g : granted) {
      Live t = tunnels.get(g.id());
      if (t != null) {
        end(t, reason);
      }
    }
  }

  /** Ends a tunnel: a Remove to each end still connected, forgotten, audited. */
  public void end(Live t, String reason) {
    tunnels.remove(t.id());
    authority.ended(t.id());
    if (t.waiting != null) {
      t.waiting.cancel(false);
    }
    TunnelGrant removal = TunnelGrant.removal(t.id(), reason);
    decide(t.client, false, false, removal);
    decide(t.gateway, false, false, removal);
    t.client
        .conn()
        .audit(
            "tunnel-revoked",
            t.client.pep(),
            "tunnel",
            t.id(),
            "subject",
            t.granted.subject(),
            "gateway",
            t.granted.gateway(),
            "reason",
            reason);
    log.info(
        "tunnels: {} ({} to {}) removed: {}",
        t.id(),
        t.granted.subject(),
        t.granted.gateway(),
        reason);
  }

  /** A DEC on {@code e}'s handle; {@code data} null for none. Dropped if the connection is gone. */
  public static void decide(End e, boolean solicited, boolean install, TunnelGrant data) {
    if (!e.conn().channel.isActive()) {
      return;
    }
    e.conn()
        .channel
        .writeAndFlush(
            Decision.of(
                TYPE,
                solicited,
                e.handle(),
                new DecisionSet(
                    e.context(),
                    new DecisionFlags(
                        false, install ? DecisionCommand.INSTALL : DecisionCommand.REMOVE),
                    null,
                    null,
                    data == null ? null : data.toDecisionData(),
                    null)));
  }

  /** The tunnels granted now, with where each end stands. */
  public List<View> view() {
    return tunnels.values().stream()
        .map(
            t ->
                new View(
                    t.id(),
                    t.granted.subject(),
                    t.granted.gateway(),
                    t.granted.objective(),
                    t.clientState,
                    t.gatewayState,
                    t.granted.until(),
                    t.since,
                    t.clientCounted,
                    t.gatewayCounted))
        .sorted(java.util.Comparator.comparing(View::id))
        .toList();
  }

  /** The gateways whose agents stand by. */
  public List<String> gateways() {
    return gateways.keySet().stream().sorted().toList();
  }
}
