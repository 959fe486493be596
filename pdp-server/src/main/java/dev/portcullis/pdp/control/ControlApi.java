package dev.portcullis.pdp.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.portcullis.cops.ClientTypes;
import dev.portcullis.metrics.HttpRoute;
import dev.portcullis.pdp.connection.PepView;
import dev.portcullis.pdp.connection.RevokedSubjects;
import dev.portcullis.pdp.policy.mls.MlsEngine;
import dev.portcullis.pdp.tunnel.TunnelBook;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PDP's control interface on its operator endpoint ({@code /control}; docs/operate.md has the
 * table of requests): an operator, known by the client certificate they present over the endpoint's
 * HTTPS, sees what the PDP holds ({@link #VIEW}) and acts on it ({@link #REVOKE}, {@link #CLOSE},
 * {@link #RELOAD}, {@link #DRAIN}), each as the configuration allows them ({@code
 * <metrics><operator name=... may=...>}). A request without an operator's certificate, for what its
 * operator may not do, or an action a page of another site sent through an operator's browser, is
 * refused 403 naming why; every action is audited with the operator's name by the PDP.
 *
 * <p>Answered on the endpoint's event loop without waiting: a view of the connections is made on
 * each connection's loop, the tunnels' on the tunnel desk's thread, a reload and a drain run on
 * threads of their own, and each answer completes when they do.
 */
public final class ControlApi implements HttpRoute {
  private static final Logger log = LoggerFactory.getLogger(ControlApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The permission to see: PEPs, decisions, sessions, tunnels, revocations, the fleet. */
  public static final String VIEW = "view";

  /** The permission to revoke and restore subjects. */
  public static final String REVOKE = "revoke";

  /** The permission to close a PEP's connection and to end one tunnel. */
  public static final String CLOSE = "close";

  /** The permission to have the policies read again. */
  public static final String RELOAD = "reload";

  /** The permission to drain this PDP. */
  public static final String DRAIN = "drain";

  /** Every permission, in the order the docs give them. */
  public static final List<String> PERMISSIONS = List.of(VIEW, REVOKE, CLOSE, RELOAD, DRAIN);

  /** The status page, its script and its style: served from the jar, nothing from elsewhere. */
  private static final Map<String, Reply> PAGE =
      Map.of(
          "/control/", asset("status.html", "text/html; charset=utf-8"),
          "/control/status.js", asset("status.js", "text/javascript; charset=utf-8"),
          "/control/status.css", asset("status.css", "text/css; charset=utf-8"));

  /**
   * What the page's and every answer's headers allow: nothing from elsewhere, no framing (the
   * page's buttons act), no sniffing.
   */
  private static final Map<String, String> HARDENED =
      Map.of(
          "Content-Security-Policy",
          "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
              + " frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
          "X-Frame-Options",
          "DENY",
          "X-Content-Type-Options",
          "nosniff",
          "Cache-Control",
          "no-store");

  /** The PDP as a whole, for the status line and the page. */
  public record Status(
      String address, String notServing, int connections, long decisions, long pushed) {}

  /**
   * A member of the fleet as the store shows it.
   *
   * @param control where its control interface is, or null if it said of none
   */
  public record Member(
      String id, dev.portcullis.pdp.fleet.FleetMembers.Load load, InetSocketAddress control) {}

  /** What the interface reaches of the PDP, and nothing more (the server gives it). */
  public interface Pdp {
    /**
     * The connections now, each seen on its own loop; at most {@code most} decisions of each, of
     * {@code subject} (or all).
     */
    CompletableFuture<List<PepView>> peps(boolean decisions, String subject, int most);

    /** The tunnels granted, completed by the tunnel desk's thread. */
    CompletableFuture<List<TunnelBook.View>> tunnels();

    /** The multilevel-security sessions open now. */
    List<MlsEngine.Session> sessions();

    /** The fleet's members, with what each said of itself; empty for a PDP alone. */
    List<Member> fleet();

    Status status();

    /** The subjects revoked now. */
    List<RevokedSubjects.Revocation> revoked();

    /** Revokes {@code subject} now; false if it was revoked already. */
    boolean revoke(String subject, String by, String reason);

    /** Ends {@code subject}'s revocation; false if it was not revoked. */
    boolean restore(String subject, String by);

    /** Closes the connections of PEP {@code pepId}; how many there were. */
    int close(String pepId, String by);

    /** Ends tunnel {@code id} at both ends; completes false if no such tunnel is granted. */
    CompletableFuture<Boolean> endTunnel(String id, String by, String reason);

    /**
     * Reads every policy again off the caller's thread; completes with what is in force, or fails
     * with the {@link ConfigException} naming the file and line refused (the running policy stays).
     */
    CompletableFuture<List<String>> reload(String by);

    /** Starts draining this PDP; false if it was draining already. */
    boolean drain(String by);
  }

  /** The longest subject, id or reason taken (a subject is a COPS string; a reason, a sentence). */
  static final int MAX_TEXT = 256;

  /**
   * The most decisions one answer lists (about 150 bytes of JSON each): a PDP may hold millions,
   * and an answer is made in memory; the rest are counted in each PEP's {@code handles}, and a
   * narrower question ({@code pep=}, {@code subject=}) lists them.
   */
  public static final int MAX_DECISIONS = 10_000;

  /**
   * The most subjects revoked at once: a revocation is a hash look-up on every decision and an
   * entry of the fleet's store; lasting ones belong in the policy.
   */
  public static final int MAX_REVOKED = 1_000;

  private final Pdp pdp;
  private final Map<String, Set<String>> operators;
  private final int maxDecisions;

  /**
   * The interface over {@code pdp} for {@code operators}: each operator's name (a client
   * certificate's CN or DNS name) and what they may ({@link #PERMISSIONS}).
   */
  public ControlApi(Pdp pdp, Map<String, Set<String>> operators) {
    this(pdp, operators, MAX_DECISIONS);
  }

  /** As {@link #ControlApi(Pdp, Map)}, listing at most {@code maxDecisions} in an answer. */
  ControlApi(Pdp pdp, Map<String, Set<String>> operators, int maxDecisions) {
    this.pdp = pdp;
    this.operators = Map.copyOf(operators);
    this.maxDecisions = maxDecisions;
  }

  @Override
  public String prefix() {
    return "/control";
  }

  @Override
  public Set<String> methods() {
    return Set.of("GET", "POST");
  }

  @Override
  public CompletableFuture<Reply> handle(Request r) {
    return answer(r).thenApply(ControlApi::hardened);
  }

  private CompletableFuture<Reply> answer(Request r) {
    String operator = operator(r);
    if (operator == null) {
      return done(
          Reply.text(
              403,
              "no operator's client certificate: the control interface takes an operator's"
                  + " (<metrics><operator name=...>), presented over HTTPS\n"));
    }
    boolean get = r.method().equals("GET");
    if (!get && r.crossSite()) {
      log.warn(
          "control: operator {}'s {} refused: sent from a page of another site ({})",
          operator,
          r.path(),
          r.origin());
      return done(
          Reply.text(
              403,
              "refused: an action sent from a page of another site (Origin "
                  + r.origin()
                  + "); use the status page this endpoint serves, or a client without one\n"));
    }
    return switch (r.path()) {
      case "/control" ->
          done(new Reply(308, "text/plain", new byte[0]).with("Location", "/control/"));
      case "/control/", "/control/status.js", "/control/status.css" ->
          get ? allowed(operator, VIEW, () -> PAGE.get(r.path())) : method("GET");
      case "/control/status" ->
          get ? allowed(operator, VIEW, () -> status(operator)) : method("GET");
      case "/control/peps" -> get ? peps(r, operator) : method("GET");
      case "/control/sessions" -> get ? allowed(operator, VIEW, this::sessions) : method("GET");
      case "/control/tunnels" -> get ? tunnels(operator) : method("GET");
      case "/control/revoked" -> get ? allowed(operator, VIEW, this::revoked) : method("GET");
      case "/control/fleet" -> get ? allowed(operator, VIEW, this::fleet) : method("GET");
      case "/control/revoke" ->
          get ? method("POST") : allowed(operator, REVOKE, () -> revoke(r, operator));
      case "/control/restore" ->
          get ? method("POST") : allowed(operator, REVOKE, () -> restore(r, operator));
      case "/control/close" ->
          get ? method("POST") : allowed(operator, CLOSE, () -> close(r, operator));
      case "/control/end-tunnel" -> get ? method("POST") : endTunnel(r, operator);
      case "/control/reload" -> get ? method("POST") : reload(operator);
      case "/control/drain" ->
          get ? method("POST") : allowed(operator, DRAIN, () -> drain(operator));
      default ->
          done(
              Reply.text(
                  404,
                  "no such control: "
                      + r.path()
                      + " (expected: /control/ (the page), /control/status, /control/peps,"
                      + " /control/sessions, /control/tunnels, /control/revoked, /control/fleet,"
                      + " /control/revoke, /control/restore, /control/close, /control/end-tunnel,"
                      + " /control/reload, /control/drain)\n"));
    };
  }

  /** The operator the request's client certificate names (the first, by name), or null. */
  private String operator(Request r) {
    return r.clientNames().stream()
        .filter(operators::containsKey)
        .sorted()
        .findFirst()
        .orElse(null);
  }

  private CompletableFuture<Reply> allowed(
      String operator, String permission, Supplier<Reply> action) {
    Reply refused = refusal(operator, permission);
    return done(refused != null ? refused : action.get());
  }

  /** Null if {@code operator} may {@code permission}; else the 403 that says not. */
  private Reply refusal(String operator, String permission) {
    if (operators.get(operator).contains(permission)) {
      return null;
    }
    log.warn("control: operator {} refused: may not {}", operator, permission);
    return Reply.text(
        403,
        "operator "
            + operator
            + " may not "
            + permission
            + " (may "
            + String.join(" ", new TreeSet<>(operators.get(operator)))
            + ")\n");
  }

  // ---- views ------------------------------------------------------------------------------------

  private Reply status(String operator) {
    Status s = pdp.status();
    ObjectNode o = JSON.createObjectNode();
    o.put("address", s.address());
    o.put("serving", s.notServing() == null);
    if (s.notServing() != null) {
      o.put("notServing", s.notServing());
    }
    o.put("connections", s.connections());
    o.put("decisions", s.decisions());
    o.put("pushed", s.pushed());
    o.put("sessions", pdp.sessions().size());
    o.put("revoked", pdp.revoked().size());
    o.put("fleetMembers", pdp.fleet().size());
    o.put("operator", operator);
    ArrayNode may = o.putArray("may");
    new TreeSet<>(operators.get(operator)).forEach(may::add);
    return json(o);
  }

  /** {@code ?pep=ID} one PEP's; {@code ?decisions=true} with decisions; {@code ?subject=S} its. */
  private CompletableFuture<Reply> peps(Request r, String operator) {
    Reply refused = refusal(operator, VIEW);
    if (refused != null) {
      return done(refused);
    }
    String subject = r.param("subject") == null ? null : text(r, "subject");
    String pep = r.param("pep") == null ? null : text(r, "pep");
    if ((r.param("subject") != null && subject == null)
        || (r.param("pep") != null && pep == null)) {
      return done(badText(r, "pep= and subject="));
    }
    boolean decisions = subject != null || "true".equals(r.param("decisions"));
    return pdp.peps(decisions, subject, maxDecisions + 1)
        .thenApply(
            views -> {
              ObjectNode o = JSON.createObjectNode();
              ArrayNode a = o.putArray("peps");
              int[] left = {maxDecisions};
              views.stream()
                  .filter(v -> pep == null || pep.equals(v.pepId()))
                  .filter(v -> subject == null || !v.decisions().isEmpty())
                  .sorted(
                      java.util.Comparator.comparing((PepView v) -> String.valueOf(v.pepId()))
                          .thenComparing(PepView::address))
                  .forEach(v -> left[0] = pep(a.addObject(), v, decisions, left[0]));
              if (left[0] < 0) {
                o.put("truncated", true);
                o.put(
                    "detail",
                    "at most "
                        + maxDecisions
                        + " decisions in one answer: ask of one PEP (pep=) or one subject"
                        + " (subject=); each PEP's handles counts all it holds");
              }
              return json(o);
            });
  }

  /** One PEP, with at most {@code left} decisions; returns what is left (-1: some left out). */
  private static int pep(ObjectNode o, PepView v, boolean decisions, int left) {
    o.put("pep", v.pepId());
    o.put("address", v.address());
    o.put("since", v.since().toString());
    ArrayNode types = o.putArray("clientTypes");
    v.clientTypes().forEach(t -> types.add(ClientTypes.hex(t)));
    o.put("handles", v.handles());
    o.put("tlsIdentity", v.tlsIdentity());
    if (decisions) {
      ArrayNode a = o.putArray("decisions");
      for (PepView.Decision d : v.decisions()) {
        if (left <= 0) {
          return -1;
        }
        left--;
        a.addObject()
            .put("clientType", ClientTypes.hex(d.clientType()))
            .put("handle", d.handle())
            .put("subject", d.subject())
            .put("operation", d.operation())
            .put("decision", d.install() ? "install" : "remove")
            .put("rule", d.rule());
      }
    }
    return left;
  }

  private Reply sessions() {
    ObjectNode o = JSON.createObjectNode();
    ArrayNode a = o.putArray("sessions");
    for (MlsEngine.Session s : pdp.sessions()) {
      ObjectNode n = a.addObject().put("subject", s.subject()).put("pep", s.pepId());
      n.put("level", s.level());
      ArrayNode c = n.putArray("categories");
      s.categories().forEach(c::add);
    }
    return json(o);
  }

  /** The tunnel desk's view, asked of its thread: the endpoint's loop does not wait for it. */
  private CompletableFuture<Reply> tunnels(String operator) {
    Reply refused = refusal(operator, VIEW);
    if (refused != null) {
      return done(refused);
    }
    return pdp.tunnels()
        .thenApply(
            views -> {
              ObjectNode o = JSON.createObjectNode();
              ArrayNode a = o.putArray("tunnels");
              for (TunnelBook.View v : views) {
                a.addObject()
                    .put("id", v.id())
                    .put("subject", v.subject())
                    .put("gateway", v.gateway())
                    .put("objective", v.objective().name().toLowerCase(Locale.ROOT))
                    .put("client", v.clientState())
                    .put("gatewayEnd", v.gatewayState())
                    .put("since", v.since().toString())
                    .put("until", v.until().toString())
                    .put("clientBytesIn", v.client() == null ? null : v.client().bytesIn())
                    .put("clientBytesOut", v.client() == null ? null : v.client().bytesOut())
                    .put(
                        "gatewayBytesIn",
                        v.gatewayCounted() == null ? null : v.gatewayCounted().bytesIn())
                    .put(
                        "gatewayBytesOut",
                        v.gatewayCounted() == null ? null : v.gatewayCounted().bytesOut());
              }
              return json(o);
            });
  }

  private Reply revoked() {
    ObjectNode o = JSON.createObjectNode();
    ArrayNode a = o.putArray("revoked");
    for (RevokedSubjects.Revocation r : pdp.revoked()) {
      a.addObject()
          .put("subject", r.subject())
          .put("by", r.by())
          .put("reason", r.reason())
          .put("at", r.at().toString());
    }
    return json(o);
  }

  private Reply fleet() {
    ObjectNode o = JSON.createObjectNode();
    ArrayNode a = o.putArray("members");
    pdp.fleet().stream()
        .sorted(java.util.Comparator.comparing(Member::id))
        .forEach(
            m ->
                a.addObject()
                    .put("member", m.id())
                    .put("address", hostPort(m.load().address()))
                    .put("connections", m.load().connections())
                    .put("draining", m.load().draining())
                    .put("control", m.control() == null ? null : hostPort(m.control())));
    return json(o);
  }

  /** {@code HOST:PORT}, an IPv6 address in brackets (as a URL takes it). */
  static String hostPort(InetSocketAddress a) {
    String h = a.getAddress().getHostAddress();
    return (h.contains(":") ? "[" + h + "]" : h) + ":" + a.getPort();
  }

  // ---- actions ----------------------------------------------------------------------------------

  private Reply revoke(Request r, String operator) {
    String subject = text(r, "subject");
    String reason = r.param("reason") == null ? "revoked by an operator" : text(r, "reason");
    if (subject == null || reason == null) {
      return badText(r, "subject= (and reason= if given)");
    }
    if (pdp.revoked().size() >= MAX_REVOKED) {
      return Reply.text(
          409,
          "refused: "
              + MAX_REVOKED
              + " subjects are revoked already, the most at once; restore some, or deny lasting"
              + " ones in the policy\n");
    }
    boolean done = pdp.revoke(subject, operator, reason);
    ObjectNode o = JSON.createObjectNode().put("subject", subject).put("revoked", done);
    if (!done) {
      o.put("detail", "revoked already: the first revocation stays");
    }
    return json(o);
  }

  private Reply restore(Request r, String operator) {
    String subject = text(r, "subject");
    if (subject == null) {
      return badText(r, "subject=");
    }
    boolean done = pdp.restore(subject, operator);
    ObjectNode o = JSON.createObjectNode().put("subject", subject).put("restored", done);
    if (!done) {
      o.put("detail", "not revoked");
    }
    return json(o);
  }

  private Reply close(Request r, String operator) {
    String pep = text(r, "pep");
    if (pep == null) {
      return badText(r, "pep=");
    }
    int closed = pdp.close(pep, operator);
    if (closed == 0) {
      return Reply.text(404, "no PEP " + pep + " is connected\n");
    }
    return json(JSON.createObjectNode().put("pep", pep).put("closed", closed));
  }

  private CompletableFuture<Reply> endTunnel(Request r, String operator) {
    Reply refused = refusal(operator, CLOSE);
    if (refused != null) {
      return done(refused);
    }
    String id = text(r, "id");
    String reason = r.param("reason") == null ? "ended by an operator" : text(r, "reason");
    if (id == null || reason == null) {
      return done(badText(r, "id= (and reason= if given)"));
    }
    return pdp.endTunnel(id, operator, reason)
        .thenApply(
            ended ->
                ended
                    ? json(JSON.createObjectNode().put("tunnel", id).put("ended", true))
                    : Reply.text(404, "no tunnel " + id + " is granted\n"));
  }

  private CompletableFuture<Reply> reload(String operator) {
    Reply refused = refusal(operator, RELOAD);
    if (refused != null) {
      return done(refused);
    }
    return pdp.reload(operator)
        .handle(
            (inForce, failed) -> {
              if (failed == null) {
                ObjectNode o = JSON.createObjectNode();
                ArrayNode a = o.putArray("reloaded");
                inForce.forEach(a::add);
                return json(o);
              }
              Throwable t = failed instanceof CompletionException c ? c.getCause() : failed;
              if (t instanceof ConfigException e) {
                return Reply.text(
                    422, "refused, the running policy stays in force: " + e.getMessage() + "\n");
              }
              throw new CompletionException(t); // answered 500, logged by the endpoint
            });
  }

  private Reply drain(String operator) {
    boolean started = pdp.drain(operator);
    ObjectNode o = JSON.createObjectNode().put("draining", true);
    if (!started) {
      o.put("detail", "draining already");
    }
    return new Reply(202, "application/json; charset=utf-8", bytes(o));
  }

  // ---- plumbing ---------------------------------------------------------------------------------

  /** Query parameter {@code name}: present, 1 to {@value #MAX_TEXT} characters, printable. */
  private static String text(Request r, String name) {
    String v = r.param(name);
    if (v == null || v.isBlank() || v.length() > MAX_TEXT) {
      return null;
    }
    for (int i = 0; i < v.length(); i++) {
      if (Character.isISOControl(v.charAt(i))) {
        return null;
      }
    }
    return v;
  }

  private static Reply badText(Request r, String expected) {
    return Reply.text(
        400,
        "expected: "
            + expected
            + ", each 1 to "
            + MAX_TEXT
            + " printable characters, in the query of "
            + r.path()
            + "\n");
  }

  private static CompletableFuture<Reply> method(String allowed) {
    return done(Reply.text(405, "expected: " + allowed + "\n").with("Allow", allowed));
  }

  private static Reply json(ObjectNode o) {
    return Reply.json(200, new String(bytes(o), StandardCharsets.UTF_8));
  }

  private static byte[] bytes(ObjectNode o) {
    try {
      return (JSON.writeValueAsString(o) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) { // Jackson's JsonProcessingException
      throw new IllegalStateException("a tree of strings, numbers and booleans is JSON", e);
    }
  }

  private static Reply hardened(Reply r) {
    Reply h = r;
    for (Map.Entry<String, String> e : HARDENED.entrySet()) {
      h = h.with(e.getKey(), e.getValue());
    }
    return h;
  }

  private static CompletableFuture<Reply> done(Reply r) {
    return CompletableFuture.completedFuture(r);
  }

  private static Reply asset(String name, String type) {
    try (InputStream in = ControlApi.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " missing from the jar");
      }
      return new Reply(200, type, in.readAllBytes());
    } catch (IOException e) {
      throw new IllegalStateException(name + " unreadable", e);
    }
  }
}
