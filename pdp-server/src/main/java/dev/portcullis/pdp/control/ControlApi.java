package dev.portcullis.pdp.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.portcullis.metrics.HttpRoute;
import dev.portcullis.pdp.connection.RevokedSubjects;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PDP's control interface on its operator endpoint ({@code /control}; docs/operate.md): an
 * operator, known by the client certificate they present over the endpoint's HTTPS, sees what the
 * PDP holds ({@code view}) and revokes or restores subjects ({@code revoke}), each as the
 * configuration allows them ({@code <metrics><operator name=... may=...>}). A request without an
 * operator's certificate, or for what its operator may not do, is refused 403 naming what is
 * missing; an action is audited with the operator's name by the PDP.
 *
 * <ul>
 *   <li>{@code GET /control/peps}: the PEP ids connected now;
 *   <li>{@code GET /control/tunnels}: the tunnels granted, each with where its ends stand;
 *   <li>{@code GET /control/revoked}: the subjects revoked, by whom, why, since when;
 *   <li>{@code POST /control/revoke?subject=S&reason=R}: revokes S now;
 *   <li>{@code POST /control/restore?subject=S}: ends S's revocation.
 * </ul>
 *
 * Answered on the endpoint's event loop: each call is a look-up or hands its work to the
 * connections' loops and the tunnel desk's thread, never waits.
 */
public final class ControlApi implements HttpRoute {
  private static final Logger log = LoggerFactory.getLogger(ControlApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The permission to see: the PEPs, the tunnels, the revoked subjects. */
  public static final String VIEW = "view";

  /** The permission to revoke and restore subjects. */
  public static final String REVOKE = "revoke";

  /** What the interface reaches of the PDP, and nothing more (the server gives it). */
  public interface Pdp {
    /** The PEP ids connected now. */
    List<String> peps();

    /** The tunnels, one line each, completed off the caller's thread. */
    CompletableFuture<List<String>> tunnels();

    /** The subjects revoked now. */
    List<RevokedSubjects.Revocation> revoked();

    /** Revokes {@code subject} now; false if it was revoked already. */
    boolean revoke(String subject, String by, String reason);

    /** Ends {@code subject}'s revocation; false if it was not revoked. */
    boolean restore(String subject, String by);
  }

  /** The longest subject or reason taken (a subject is a COPS string; a reason is a sentence). */
  static final int MAX_TEXT = 256;

  private final Pdp pdp;
  private final Map<String, Set<String>> operators;

  /**
   * The interface over {@code pdp} for {@code operators}: each operator's name (a client
   * certificate's CN or DNS name) and what they may ({@link #VIEW}, {@link #REVOKE}).
   */
  public ControlApi(Pdp pdp, Map<String, Set<String>> operators) {
    this.pdp = pdp;
    this.operators = Map.copyOf(operators);
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
    String operator = operator(r);
    if (operator == null) {
      return done(
          Reply.text(
              403,
              "no operator's client certificate: the control interface takes an operator's"
                  + " (<metrics><operator name=...>), presented over HTTPS\n"));
    }
    String path = r.path();
    boolean get = r.method().equals("GET");
    return switch (path) {
      case "/control/peps" -> get ? allowed(operator, VIEW, this::peps) : method("GET");
      case "/control/tunnels" -> get ? tunnels(operator) : method("GET");
      case "/control/revoked" -> get ? allowed(operator, VIEW, this::revoked) : method("GET");
      case "/control/revoke" ->
          get ? method("POST") : allowed(operator, REVOKE, () -> revoke(r, operator));
      case "/control/restore" ->
          get ? method("POST") : allowed(operator, REVOKE, () -> restore(r, operator));
      default ->
          done(
              Reply.text(
                  404,
                  "no such control: "
                      + path
                      + " (expected: /control/peps, /control/tunnels, /control/revoked,"
                      + " /control/revoke, /control/restore)\n"));
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
      String operator, String permission, java.util.function.Supplier<Reply> action) {
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
            + String.join(" ", new java.util.TreeSet<>(operators.get(operator)))
            + ")\n");
  }

  private Reply peps() {
    ObjectNode o = JSON.createObjectNode();
    ArrayNode a = o.putArray("peps");
    pdp.peps().forEach(a::add);
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
            lines -> {
              ObjectNode o = JSON.createObjectNode();
              ArrayNode a = o.putArray("tunnels");
              lines.forEach(a::add);
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

  private Reply revoke(Request r, String operator) {
    String subject = text(r, "subject");
    String reason = r.param("reason") == null ? "revoked by an operator" : text(r, "reason");
    if (subject == null || reason == null) {
      return badText(r);
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
      return badText(r);
    }
    boolean done = pdp.restore(subject, operator);
    ObjectNode o = JSON.createObjectNode().put("subject", subject).put("restored", done);
    if (!done) {
      o.put("detail", "not revoked");
    }
    return json(o);
  }

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

  private static Reply badText(Request r) {
    return Reply.text(
        400,
        "expected: subject= (and reason= for a revocation), each 1 to "
            + MAX_TEXT
            + " printable characters, in the query of "
            + r.path()
            + "\n");
  }

  private static CompletableFuture<Reply> method(String allowed) {
    return done(Reply.text(405, "expected: " + allowed + "\n").with("Allow", allowed));
  }

  private static Reply json(ObjectNode o) {
    try {
      return Reply.json(200, JSON.writeValueAsString(o) + "\n");
    } catch (java.io.IOException e) { // Jackson's JsonProcessingException
      throw new IllegalStateException("a tree of strings and booleans is JSON", e);
    }
  }

  private static CompletableFuture<Reply> done(Reply r) {
    return CompletableFuture.completedFuture(r);
  }
}
