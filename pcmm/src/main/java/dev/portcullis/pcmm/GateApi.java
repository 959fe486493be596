package dev.portcullis.pcmm;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.metrics.HttpRoute;
import dev.portcullis.pcmm.GateRefusedException.Kind;
import dev.portcullis.support.LogSummary;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /gates}: application managers ask the policy server for gates over HTTP (docs/pcmm.md,
 * "Application managers over HTTP"). Every request carries an application manager's bearer token;
 * its gates carry that manager's AMID, and it sees, reads and deletes only those.
 *
 * <ul>
 *   <li>{@code POST /gates}: a gate (JSON); 201 with the gate, or 400 (the field at fault), 403
 *       (the policy's reason), 502 (the CMTS's PacketCable Error), 503 (CMTS not connected), 504
 *       (no answer: the outcome is not known);
 *   <li>{@code GET /gates[?subscriber=ADDRESS]}: the manager's gates held now;
 *   <li>{@code GET /gates/CMTS/GATE-ID}: the gate as its CMTS reports it (Gate-Info);
 *   <li>{@code DELETE /gates/CMTS/GATE-ID}: deletes it (Gate-Delete).
 * </ul>
 */
final class GateApi implements HttpRoute {
  private static final Logger log = LoggerFactory.getLogger(GateApi.class);

  private final PolicyServer server;
  private final List<PcmmConfig.ApplicationManager> managers;
  private final Function<String, Optional<String>> owner;
  private final LogSummary refusals;

  /**
   * @param owner the endpoint ({@code host:port}) of the fleet member holding a CMTS this server
   *     does not hold, where a request for it is redirected (307)
   */
  GateApi(
      PolicyServer server,
      List<PcmmConfig.ApplicationManager> managers,
      Function<String, Optional<String>> owner,
      Clock clock) {
    this.refusals =
        new LogSummary(log, "/gates requests without a valid token", Duration.ofMinutes(1), clock);
    this.server = server;
    this.managers = List.copyOf(managers);
    this.owner = owner;
  }

  /** 307 to the member holding {@code cmts}, for the same request; null if none is known. */
  private Reply redirectToHolder(String cmts, Request r) {
    if (server.isReady(cmts)) {
      return null;
    }
    return owner
        .apply(cmts)
        .map(
            o ->
                Reply.json(
                        307,
                        GateJson.JSON
                            .createObjectNode()
                            .put("error", "CMTS " + cmts + " is held by the fleet member at " + o)
                            .toString())
                    .with("location", "http://" + o + r.path() + query(r)))
        .orElse(null);
  }

  private static String query(Request r) {
    String s = r.param("subscriber");
    return s == null ? "" : "?subscriber=" + URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public String prefix() {
    return "/gates";
  }

  @Override
  public Set<String> methods() {
    return Set.of("GET", "POST", "DELETE");
  }

  @Override
  public CompletableFuture<Reply> handle(Request r) {
    PcmmConfig.ApplicationManager am = authenticate(r.authorization());
    if (am == null) {
      // anyone who reaches the endpoint can cause this at will: the first a minute, then counted
      refusals.warn(
          "no valid token", "{} {} from {}: no valid token", r.method(), r.path(), r.remote());
      return done(error(401, "no valid token (expected: Authorization: Bearer TOKEN)"));
    }
    if (am.clientName() != null && !r.clientNames().contains(am.clientName())) {
      // a token bound to a client certificate is worth nothing without it; the answer is the
      // same as for a wrong token, so that it does not tell a stolen token is valid
      refusals.warn(
          "token without its certificate",
          "{} {} from {}: application manager {}'s token without its client certificate {}"
              + " (presented: {})",
          r.method(),
          r.path(),
          r.remote(),
          am.name(),
          am.clientName(),
          r.clientNames().isEmpty() ? "none" : r.clientNames());
      return done(error(401, "no valid token (expected: Authorization: Bearer TOKEN)"));
    }
    String[] parts = r.path().substring(prefix().length()).split("/", -1);
    // "" for /gates; "", cmts, id for /gates/cmts/id
    if (parts.length == 1 || (parts.length == 2 && parts[1].isEmpty())) {
      return switch (r.method()) {
        case "POST" -> set(am, r);
        case "GET" -> done(list(am, r.param("subscriber")));
        default -> done(error(405, r.method() + " /gates (expected: GET or POST)"));
      };
    }
    if (parts.length != 3 || r.method().equals("POST")) {
      return done(error(404, "no such resource (expected: /gates or /gates/CMTS/GATE-ID)"));
    }
    Reply away = server.cmtss().contains(parts[1]) ? redirectToHolder(parts[1], r) : null;
    if (away != null) {
      return done(away);
    }
    Gate g = find(am, parts[1], parts[2]);
    if (g == null) {
      return done(error(404, "no gate " + parts[2] + " of yours on " + parts[1]));
    }
    return r.method().equals("GET") ? info(g) : delete(am, g);
  }

  /** The manager whose token this is: every digest compared, in constant time. */
  private PcmmConfig.ApplicationManager authenticate(String authorization) {
    byte[] token = BearerTokens.fromHeader(authorization);
    if (token == null) {
      return null;
    }
    byte[] d = BearerTokens.sha256(token);
    Arrays.fill(token, (byte) 0);
    PcmmConfig.ApplicationManager found = null;
    for (PcmmConfig.ApplicationManager m : managers) {
      if (MessageDigest.isEqual(d, m.tokenDigest()) && found == null) {
        found = m;
      }
    }
    return found;
  }

  private CompletableFuture<Reply> set(PcmmConfig.ApplicationManager am, Request r) {
    GateJson.Parsed p;
    try {
      p = GateJson.request(r.body(), am.amid());
    } catch (GateJson.BadRequest e) {
      return done(error(400, e.getMessage()));
    }
    if (!server.cmtss().contains(p.cmts())) {
      return done(
          error(
              404,
              "cmts: no CMTS named " + p.cmts() + " (expected one of " + server.cmtss() + ")"));
    }
    Reply away = redirectToHolder(p.cmts(), r);
    if (away != null) {
      return done(away);
    }
    return server
        .set(p.cmts(), p.request())
        .handle(
            (g, e) -> {
              if (e == null) {
                log.info("{}: set {}", am.name(), g);
                return Reply.json(201, GateJson.gate(g).toString());
              }
              return refused(e);
            });
  }

  private Reply list(PcmmConfig.ApplicationManager am, String subscriber) {
    ArrayNode a = GateJson.array();
    for (Gate g : server.gates()) {
      if (g.request().amid().equals(am.amid())
          && (subscriber == null
              || g.request().subscriber().address().getHostAddress().equals(subscriber))) {
        a.add(GateJson.gate(g));
      }
    }
    return Reply.json(200, a.toString());
  }

  private CompletableFuture<Reply> info(Gate g) {
    return server
        .info(g)
        .handle(
            (m, e) -> {
              if (e != null) {
                return refused(e);
              }
              if (m.command() != GateCommand.GATE_INFO_ACK) {
                return refused(GateRefusedException.byCmts("Gate-Info", g.cmts(), m.error()));
              }
              ObjectNode o = GateJson.gate(g);
              if (m.gateState() != null) {
                o.put("state", GateJson.state(m.gateState().state()));
              }
              return Reply.json(200, o.toString());
            });
  }

  private CompletableFuture<Reply> delete(PcmmConfig.ApplicationManager am, Gate g) {
    return server
        .delete(g, "deleted by application manager " + am.name())
        .handle(
            (ok, e) -> {
              if (e != null) {
                return refused(e);
              }
              log.info("{}: deleted {}", am.name(), g);
              ObjectNode o = GateJson.gate(g);
              o.put("state", "deleted");
              return Reply.json(200, o.toString());
            });
  }

  /** One of the manager's gates, by CMTS and Gate ID (hex with 0x, or decimal), or null. */
  private Gate find(PcmmConfig.ApplicationManager am, String cmts, String id) {
    long n;
    try {
      n = id.startsWith("0x") ? Long.parseLong(id.substring(2), 16) : Long.parseLong(id);
    } catch (NumberFormatException e) {
      return null;
    }
    if (!server.cmtss().contains(cmts)) {
      return null;
    }
    for (Gate g : server.gates(cmts)) {
      if (Integer.toUnsignedLong(g.gateId()) == n && g.request().amid().equals(am.amid())) {
        return g;
      }
    }
    return null;
  }

  /**
   * A refusal as its status: the policy's 403, the CMTS's 502 (an -Err, or an answer that cannot be
   * read), 503, 504, 404.
   */
  private static Reply refused(Throwable e) {
    e = GateRefusedException.cause(e);
    if (!(e instanceof GateRefusedException g)) {
      log.warn("gate API: {}", e.toString());
      return error(500, "internal error");
    }
    int status =
        switch (g.kind()) {
          case POLICY -> 403;
          case CMTS, UNREADABLE -> 502;
          case UNAVAILABLE -> 503;
          case NO_ANSWER -> 504;
          case NOT_HELD -> 404;
          case IN_DOUBT -> 409;
        };
    ObjectNode o = GateJson.JSON.createObjectNode().put("error", g.getMessage());
    if (g.kind() == Kind.CMTS && g.error() != null) {
      o.put("pcmm-error", g.error().code()).put("pcmm-subcode", g.error().subcode());
    }
    return Reply.json(status, o.toString());
  }

  private static Reply error(int status, String message) {
    return Reply.json(status, GateJson.JSON.createObjectNode().put("error", message).toString());
  }

  private static CompletableFuture<Reply> done(Reply r) {
    return CompletableFuture.completedFuture(r);
  }
}
