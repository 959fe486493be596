package dev.portcullis.metrics;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * An API served on a component's operator endpoint beside {@code /metrics}, {@code /health} and
 * {@code /ready} (the PCMM policy server's gates for application managers, say): every request
 * whose path is {@link #prefix()} or below it, with one of {@link #methods()}, gets the endpoint's
 * hardening (deadlines, connection limit, header and body limits, one request a connection) and is
 * then handed over whole.
 */
public interface HttpRoute {
  /** Request bodies longer than this are refused (413) before the route sees them. */
  int MAX_BODY = 64 * 1024;

  /** {@code /gates}: the path this route serves, and everything below it. */
  String prefix();

  /** The methods it takes (upper case); any other is answered 405 with these in Allow. */
  Set<String> methods();

  /**
   * Answers one request. Called on the endpoint's event loop: anything slow must run elsewhere and
   * complete the future later; a future that fails is answered 500 with no detail (the failure is
   * logged), one not complete within {@code 30 s} is answered 504.
   */
  CompletableFuture<Reply> handle(Request request);

  /**
   * One request, read whole.
   *
   * @param path the decoded path, no query
   * @param query the query's parameters, decoded
   * @param authorization the Authorization header, or null
   * @param origin the Origin header a browser sends with a script's or a form's request, or null
   * @param host the Host header, or null
   * @param remote who sent it
   * @param clientNames over TLS with a client certificate the endpoint verified: its subject's CN
   *     and its DNS names; else empty
   */
  record Request(
      String method,
      String path,
      Map<String, List<String>> query,
      String authorization,
      String contentType,
      String origin,
      String host,
      byte[] body,
      InetSocketAddress remote,
      Set<String> clientNames) {
    public Request {
      clientNames = Set.copyOf(clientNames);
    }

    /**
     * True when a browser sent this request from a page of another site than this endpoint (its
     * Origin's host and port are not the Host it was sent to): a page elsewhere making an
     * operator's browser act with the operator's client certificate. Requests without an Origin
     * (curl, scripts, a page's own GETs) are not.
     */
    public boolean crossSite() {
      if (origin == null) {
        return false;
      }
      if (host == null) {
        return true;
      }
      try {
        java.net.URI o = java.net.URI.create(origin);
        String authority = o.getRawAuthority();
        return authority == null || !authority.equalsIgnoreCase(host);
      } catch (IllegalArgumentException e) {
        return true; // "null" (a sandboxed page) and anything unreadable
      }
    }

    /** The first value of query parameter {@code name}, or null. */
    public String param(String name) {
      List<String> v = query.get(name);
      return v == null || v.isEmpty() ? null : v.get(0);
    }
  }

  /** An answer: its status, content type, body, and headers of its own (Location, say). */
  record Reply(int status, String contentType, byte[] body, Map<String, String> headers) {
    public Reply {
      headers = Map.copyOf(headers);
    }

    public Reply(int status, String contentType, byte[] body) {
      this(status, contentType, body, Map.of());
    }

    /** This reply with {@code name: value} added. */
    public Reply with(String name, String value) {
      Map<String, String> h = new java.util.LinkedHashMap<>(headers);
      h.put(name, value);
      return new Reply(status, contentType, body, h);
    }

    public static Reply json(int status, String json) {
      return new Reply(
          status, "application/json; charset=utf-8", json.getBytes(StandardCharsets.UTF_8));
    }

    public static Reply text(int status, String text) {
      return new Reply(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }
  }
}
