package dev.portcullis.pdp.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.metrics.HttpRoute;
import dev.portcullis.pdp.connection.PepView;
import dev.portcullis.pdp.connection.RevokedSubjects;
import dev.portcullis.pdp.policy.mls.MlsEngine;
import dev.portcullis.pdp.tunnel.TunnelBook;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What bounds an answer and an operator's revocations: a PDP holding more decisions than one answer
 * lists says so and says how to ask narrower; more revocations than the most at once are refused.
 */
class ControlApiLimitsTest {
  /** A PDP of {@code peps} PEPs holding {@code each} decisions each, and {@code revoked}. */
  static ControlApi.Pdp pdp(int peps, int each, List<RevokedSubjects.Revocation> revoked) {
    return new ControlApi.Pdp() {
      @Override
      public CompletableFuture<List<PepView>> peps(boolean decisions, String subject, int most) {
        List<PepView> all = new ArrayList<>();
        for (int p = 0; p < peps; p++) {
          List<PepView.Decision> d = new ArrayList<>();
          for (int i = 0; i < Math.min(each, most) && decisions; i++) {
            d.add(new PepView.Decision(0xC0A5, "68" + i, "alice", "access", true, "ssh"));
          }
          all.add(
              new PepView(
                  "gw-" + p,
                  "127.0.0.1:" + (40000 + p),
                  Instant.EPOCH,
                  List.of(0xC0A5),
                  each,
                  null,
                  d));
        }
        return CompletableFuture.completedFuture(all);
      }

      @Override
      public CompletableFuture<List<TunnelBook.View>> tunnels() {
        return CompletableFuture.completedFuture(List.of());
      }

      @Override
      public List<MlsEngine.Session> sessions() {
        return List.of();
      }

      @Override
      public List<ControlApi.Member> fleet() {
        return List.of();
      }

      @Override
      public ControlApi.Status status() {
        return new ControlApi.Status("127.0.0.1:3288", null, peps, 0, 0);
      }

      @Override
      public List<RevokedSubjects.Revocation> revoked() {
        return revoked;
      }

      @Override
      public boolean revoke(String subject, String by, String reason) {
        revoked.add(new RevokedSubjects.Revocation(subject, by, reason, Instant.EPOCH));
        return true;
      }

      @Override
      public boolean restore(String subject, String by) {
        return false;
      }

      @Override
      public int close(String pepId, String by) {
        return 0;
      }

      @Override
      public CompletableFuture<Boolean> endTunnel(String id, String by, String reason) {
        return CompletableFuture.completedFuture(false);
      }

      @Override
      public CompletableFuture<List<String>> reload(String by) {
        return CompletableFuture.completedFuture(List.of());
      }

      @Override
      public boolean drain(String by) {
        return false;
      }
    };
  }

  static HttpRoute.Reply ask(ControlApi api, String method, String path, Map<String, String> q)
      throws Exception {
    Map<String, List<String>> query = new java.util.HashMap<>();
    q.forEach((k, v) -> query.put(k, List.of(v)));
    return api.handle(
            new HttpRoute.Request(
                method,
                path,
                query,
                null,
                null,
                null,
                null,
                new byte[0],
                new InetSocketAddress("127.0.0.1", 50000),
                Set.of("ops-1")))
        .get(5, TimeUnit.SECONDS);
  }

  static JsonNode json(HttpRoute.Reply r) throws Exception {
    assertEquals(200, r.status(), new String(r.body(), StandardCharsets.UTF_8));
    return new ObjectMapper().readTree(r.body());
  }

  @Test
  void anAnswerListsAtMostItsShareOfDecisionsAndSaysHowToAskNarrower() throws Exception {
    Map<String, Set<String>> ops = Map.of("ops-1", Set.of("view", "revoke"));
    ControlApi api = new ControlApi(pdp(3, 2, new ArrayList<>()), ops, 3);
    JsonNode a = json(ask(api, "GET", "/control/peps", Map.of("decisions", "true")));
    int listed = 0;
    for (JsonNode p : a.get("peps")) {
      listed += p.get("decisions").size();
      assertEquals(2, p.get("handles").asInt(), "each PEP's count of all it holds");
    }
    assertEquals(3, listed, a.toString());
    assertTrue(a.get("truncated").asBoolean(), a.toString());
    assertTrue(a.get("detail").asText().contains("ask of one PEP (pep=)"), a.toString());
    JsonNode one =
        json(ask(api, "GET", "/control/peps", Map.of("pep", "gw-1", "decisions", "true")));
    assertEquals(2, one.get("peps").get(0).get("decisions").size());
    assertFalse(one.has("truncated"), "all of one PEP's fit: " + one);
    JsonNode exact =
        json(
            ask(
                new ControlApi(pdp(1, 3, new ArrayList<>()), ops, 3),
                "GET",
                "/control/peps",
                Map.of("decisions", "true")));
    assertFalse(exact.has("truncated"), "exactly the most is not truncated: " + exact);
  }

  @Test
  void moreRevocationsThanTheMostAtOnceAreRefused() throws Exception {
    List<RevokedSubjects.Revocation> revoked = Collections.synchronizedList(new ArrayList<>());
    ControlApi api = new ControlApi(pdp(0, 0, revoked), Map.of("ops-1", Set.of("view", "revoke")));
    for (int i = 0; i < ControlApi.MAX_REVOKED; i++) {
      assertEquals(200, ask(api, "POST", "/control/revoke", Map.of("subject", "u" + i)).status());
    }
    HttpRoute.Reply no = ask(api, "POST", "/control/revoke", Map.of("subject", "one-more"));
    assertEquals(409, no.status());
    assertTrue(
        new String(no.body(), StandardCharsets.UTF_8).contains("subjects are revoked already"));
    assertEquals(ControlApi.MAX_REVOKED, revoked.size());
  }
}
