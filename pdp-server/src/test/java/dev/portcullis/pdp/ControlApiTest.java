package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.pki.DevCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control interface on the PDP's operator endpoint (docs/operate.md): only an operator's client
 * certificate opens it, each operator may do what the configuration says and nothing more, a
 * revocation there is the PDP's and is audited with the operator's name; the probes still need no
 * certificate.
 */
@Timeout(60)
class ControlApiTest {
  @TempDir Path dir;
  private DevCertificates.Pki pki;
  private PdpServer pdp;

  static final String RULES =
      "<rules><rule id=\"ssh\" decision=\"install\"><match subject=\"alice\"/></rule>"
          + "<default decision=\"remove\"/></rules>";

  /** The PDP configuration these tests run: rules and MLS, an audit, an operator endpoint. */
  static String config(DevCertificates.Pki pki, String operators) {
    return """
        <pdp>
          <listen address="127.0.0.1" port="0"/>
          <client-type code="0xC0A5" engine="rules" policy="rules.xml"/>
          <client-type code="0xC0A6" engine="mls" policy="mls.xml"/>
          <audit file="audit.jsonl"/>
          <metrics listen="127.0.0.1:0">
            <tls certificate="%s" key="%s" client-ca="%s"/>
            %s
          </metrics>
        </pdp>
        """
        .formatted(
            pki.pdp().certificateChain(), pki.pdp().privateKey(), pki.caCertificate(), operators);
  }

  String config(String operators) {
    return config(pki, operators);
  }

  /**
   * A PDP in {@code dir} deciding {@link #RULES} and the sample MLS policy, its operator endpoint
   * over HTTPS with {@code pki}'s certificates, for {@code operators} ({@code <operator>}
   * elements).
   */
  static PdpServer withOperators(Path dir, DevCertificates.Pki pki, String operators)
      throws Exception {
    Files.writeString(dir.resolve("rules.xml"), RULES);
    Files.copy(Path.of("../config/policy-mls.xml"), dir.resolve("mls.xml"));
    Files.writeString(dir.resolve("pdp.xml"), config(pki, operators));
    return PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
  }

  @BeforeEach
  void start() throws Exception {
    pki =
        DevCertificates.ensure(
            dir.resolve("pki"), List.of(), List.of("ops-1", "viewer", "closer", "intruder"));
    pdp =
        withOperators(
            dir,
            pki,
            "<operator name=\"ops-1\" may=\"view revoke close reload drain\"/>"
                + "<operator name=\"viewer\" may=\"view\"/>"
                + "<operator name=\"closer\" may=\"close\"/>");
  }

  @AfterEach
  void stop() {
    if (pdp != null) {
      pdp.close();
    }
  }

  /** A client trusting the development CA, presenting {@code who}'s certificate (null: none). */
  HttpClient client(String who) throws Exception {
    return HttpClient.newBuilder()
        .sslContext(DevCertificates.clientContext(pki, who))
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  HttpResponse<String> call(String who, String method, String pathAndQuery) throws Exception {
    return call(who, method, pathAndQuery, null);
  }

  /** As {@link #call(String, String, String)}, with an Origin header as a browser's page sends. */
  HttpResponse<String> call(String who, String method, String pathAndQuery, String origin)
      throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(
                URI.create("https://localhost:" + pdp.metricsAddress().getPort() + pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody());
    if (origin != null) {
      r.header("Origin", origin);
    }
    return client(who).send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode json(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    return new ObjectMapper().readTree(r.body());
  }

  /**
   * "Who is connected and what do they hold": each PEP with its address, client types, the
   * decisions it holds (all, or one subject's), the MLS sessions, and the PDP's figures.
   */
  @Test
  void anOperatorSeesEachPepTheDecisionsItHoldsAndTheSessions() throws Exception {
    try (BlockingPep rules = new BlockingPep(pdp.address(), AccessRequest.CLIENT_TYPE, "gw-1");
        BlockingPep mls = new BlockingPep(pdp.address(), 0xC0A6, "desk-7")) {
      assertTrue(rules.ask("h-alice", AccessRequest.of(AccessOperation.ACCESS, "alice")));
      assertFalse(rules.ask("h-bob", AccessRequest.of(AccessOperation.ACCESS, "bob")));
      assertTrue(mls.ask("login", AccessRequest.login("alice", 2, List.of("NATO"))));

      JsonNode peps = json(call("viewer", "GET", "/control/peps")).get("peps");
      assertEquals(2, peps.size(), peps.toString());
      JsonNode desk = peps.get(0);
      assertEquals("desk-7", desk.get("pep").asText());
      assertEquals("[\"0xC0A6\"]", desk.get("clientTypes").toString());
      assertEquals(1, desk.get("handles").asInt());
      assertTrue(desk.get("address").asText().startsWith("127.0.0.1:"), desk.toString());
      assertTrue(desk.get("tlsIdentity").isNull(), "plain COPS: no TLS identity");
      assertTrue(desk.get("since").asText().endsWith("Z"), desk.toString());
      assertTrue(desk.path("decisions").isMissingNode(), "decisions only when asked");
      assertEquals("gw-1", peps.get(1).get("pep").asText());
      assertEquals(2, peps.get(1).get("handles").asInt());

      JsonNode all = json(call("viewer", "GET", "/control/peps?pep=gw-1&decisions=true"));
      assertEquals(1, all.get("peps").size());
      assertEquals(
          "[{\"clientType\":\"0xC0A5\",\"handle\":\"682d616c696365\",\"subject\":\"alice\","
              + "\"operation\":\"access\",\"decision\":\"install\",\"rule\":\"ssh\"},"
              + "{\"clientType\":\"0xC0A5\",\"handle\":\"682d626f62\",\"subject\":\"bob\","
              + "\"operation\":\"access\",\"decision\":\"remove\",\"rule\":\"default\"}]",
          all.get("peps").get(0).get("decisions").toString());

      JsonNode alices = json(call("viewer", "GET", "/control/peps?subject=alice")).get("peps");
      assertEquals(2, alices.size(), "both PEPs hold a decision of hers");
      for (JsonNode p : alices) {
        assertEquals(1, p.get("decisions").size(), p.toString());
        assertEquals("alice", p.get("decisions").get(0).get("subject").asText());
      }
      assertEquals(
          0, json(call("viewer", "GET", "/control/peps?subject=carol")).get("peps").size());

      assertEquals(
          "{\"sessions\":[{\"subject\":\"alice\",\"pep\":\"desk-7\",\"level\":\"SECRET\","
              + "\"categories\":[\"NATO\"]}]}\n",
          call("viewer", "GET", "/control/sessions").body());
      JsonNode status = json(call("viewer", "GET", "/control/status"));
      assertEquals(2, status.get("connections").asInt(), status.toString());
      assertEquals(3, status.get("decisions").asInt(), status.toString());
      assertEquals(1, status.get("sessions").asInt(), status.toString());
      assertTrue(status.get("serving").asBoolean(), status.toString());
      assertEquals("[\"view\"]", status.get("may").toString());
      assertEquals("{\"members\":[]}\n", call("viewer", "GET", "/control/fleet").body());
    }
  }

  /**
   * Revoking from the interface is revoking everywhere on this PDP: the MLS PEP hears its login
   * removed, the session ends (a restore does not bring it back: she logs in again), and her
   * decisions at the other PEP are removed too.
   */
  @Test
  void aRevocationRemovesTheSubjectsDecisionsAndEndsHerSessions() throws Exception {
    try (BlockingPep rules = new BlockingPep(pdp.address(), AccessRequest.CLIENT_TYPE, "gw-1");
        BlockingPep mls = new BlockingPep(pdp.address(), 0xC0A6, "desk-7")) {
      assertTrue(rules.ask("h-alice", AccessRequest.of(AccessOperation.ACCESS, "alice")));
      assertTrue(mls.ask("login", AccessRequest.login("alice", 2, List.of("NATO"))));
      assertTrue(mls.ask("login-bob", AccessRequest.login("bob", 1, List.of())));
      assertEquals(200, call("ops-1", "POST", "/control/revoke?subject=alice").statusCode());
      dev.portcullis.cops.Decision removed = mls.pushed(5_000);
      assertFalse(BlockingPep.installs(removed), "her login is removed: " + removed);
      assertFalse(BlockingPep.installs(rules.pushed(5_000)), "her access is removed");
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> !call("viewer", "GET", "/control/sessions").body().contains("alice"));
      assertTrue(call("viewer", "GET", "/control/sessions").body().contains("\"bob\""));
      assertEquals(200, call("ops-1", "POST", "/control/restore?subject=alice").statusCode());
      assertFalse(
          mls.ask("read", AccessRequest.access("alice", "intel-db", AccessMode.READ)),
          "no session of hers came back with the restore");
    }
  }

  /** Seeing is a permission too: an operator who may only act sees nothing, not even the page. */
  @Test
  void everyViewNeedsTheViewPermission() throws Exception {
    for (String view :
        List.of(
            "/control/",
            "/control/status.js",
            "/control/status",
            "/control/peps",
            "/control/peps?decisions=true",
            "/control/sessions",
            "/control/tunnels",
            "/control/revoked",
            "/control/fleet")) {
      HttpResponse<String> no = call("closer", "GET", view);
      assertEquals(403, no.statusCode(), view);
      assertEquals("operator closer may not view (may close)\n", no.body(), view);
    }
    assertEquals(404, call("closer", "POST", "/control/close?pep=gw-1").statusCode(), "may close");
  }

  /**
   * Every action needs its own permission; each one done is audited with the operator's name: a
   * PEP's connection closed (a Client-Close it can read), the policies read again (a refused file
   * named with its line, the running policy kept), this PDP drained.
   */
  @Test
  void eachActionNeedsItsPermissionAndIsAuditedWithTheOperator() throws Exception {
    for (String action :
        List.of("close?pep=gw-1", "end-tunnel?id=t-1", "reload", "drain", "revoke?subject=x")) {
      HttpResponse<String> no = call("viewer", "POST", "/control/" + action);
      assertEquals(403, no.statusCode(), action);
      assertTrue(no.body().startsWith("operator viewer may not "), no.body());
    }
    try (BlockingPep pep = new BlockingPep(pdp.address(), AccessRequest.CLIENT_TYPE, "gw-1")) {
      assertTrue(pep.ask("h-alice", AccessRequest.of(AccessOperation.ACCESS, "alice")));
      assertEquals(404, call("ops-1", "POST", "/control/close?pep=gw-9").statusCode());
      assertEquals(
          "{\"pep\":\"gw-1\",\"closed\":1}\n",
          call("ops-1", "POST", "/control/close?pep=gw-1").body());
      ClientClose cc = pep.clientClose(5_000);
      assertEquals(ErrorCode.UNSPECIFIED.code(), cc.error().code(), cc.toString());
    }
    HttpResponse<String> none = call("ops-1", "POST", "/control/end-tunnel?id=t-1");
    assertEquals(404, none.statusCode());
    assertEquals("no tunnel t-1 is granted\n", none.body());

    JsonNode reloaded = json(call("ops-1", "POST", "/control/reload")).get("reloaded");
    assertEquals(2, reloaded.size(), reloaded.toString());
    assertTrue(reloaded.get(0).asText().startsWith("0xC0A5: "), reloaded.toString());
    Files.writeString(dir.resolve("rules.xml"), "<rules>\n<rule id=\"x\" decision=\"maybe\"/>");
    HttpResponse<String> refused = call("ops-1", "POST", "/control/reload");
    assertEquals(422, refused.statusCode(), refused.body());
    assertTrue(
        refused.body().startsWith("refused, the running policy stays in force: ")
            && refused.body().contains("rules.xml"),
        refused.body());

    HttpResponse<String> drain = call("ops-1", "POST", "/control/drain");
    assertEquals(202, drain.statusCode(), drain.body());
    assertEquals("{\"draining\":true}\n", drain.body());
    assertTrue(call("ops-1", "POST", "/control/drain").body().contains("draining already"));
    JsonNode status = json(call("viewer", "GET", "/control/status"));
    assertEquals("draining", status.get("notServing").asText(), status.toString());
    assertEquals(503, call(null, "GET", "/ready").statusCode(), "not ready while draining");

    pdp.close();
    List<String> acts = new java.util.ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("audit.jsonl"))) {
      JsonNode r = new ObjectMapper().readTree(line);
      if (r.has("by")) {
        acts.add(r.get("event").asText() + " by " + r.get("by").asText());
      }
    }
    assertEquals(
        List.of(
            "pep-closed by ops-1",
            "reload-asked by ops-1",
            "reload-asked by ops-1",
            "drain-asked by ops-1"),
        acts);
  }

  /**
   * A page of another site cannot make an operator's browser act (the browser would present the
   * operator's certificate): an action with a foreign Origin is refused; the endpoint's own page
   * may act, and views are not actions.
   */
  @Test
  void anActionFromAnotherSitesPageIsRefused() throws Exception {
    String self = "https://localhost:" + pdp.metricsAddress().getPort();
    for (String origin : List.of("https://evil.example", "null", self + ".evil.example")) {
      HttpResponse<String> r = call("ops-1", "POST", "/control/revoke?subject=alice", origin);
      assertEquals(403, r.statusCode(), origin);
      assertTrue(r.body().contains("page of another site"), r.body());
    }
    assertEquals(List.of(), pdp.revokedSubjects());
    assertEquals(
        200, call("ops-1", "GET", "/control/revoked", "https://evil.example").statusCode());
    assertEquals(200, call("ops-1", "POST", "/control/revoke?subject=alice", self).statusCode());
    assertEquals("alice", pdp.revokedSubjects().get(0).subject());
  }

  /** The status page: served to a viewer with headers that keep it from being framed or mixed. */
  @Test
  void theStatusPageIsServedHardened() throws Exception {
    HttpResponse<String> page = call("viewer", "GET", "/control/");
    assertEquals(200, page.statusCode());
    assertTrue(page.body().contains("<title>Portcullis PDP</title>"), page.body());
    String csp = page.headers().firstValue("Content-Security-Policy").orElse("");
    assertTrue(csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"), csp);
    assertFalse(csp.contains("unsafe"), "no inline script or style: " + csp);
    assertEquals("DENY", page.headers().firstValue("X-Frame-Options").orElse(""));
    assertEquals(200, call("viewer", "GET", "/control/status.js").statusCode());
    assertEquals(200, call("viewer", "GET", "/control/status.css").statusCode());
    assertEquals(403, call("intruder", "GET", "/control/").statusCode());
    HttpResponse<String> bare = call("viewer", "GET", "/control");
    assertEquals(308, bare.statusCode());
    assertEquals("/control/", bare.headers().firstValue("Location").orElse(""));
  }

  @Test
  void onlyAnOperatorsCertificateOpensItAndProbesNeedNone() throws Exception {
    HttpResponse<String> none = call(null, "GET", "/control/revoked");
    assertEquals(403, none.statusCode());
    assertTrue(none.body().contains("no operator's client certificate"), none.body());
    assertEquals(403, call("intruder", "GET", "/control/revoked").statusCode());
    assertEquals(403, call("intruder", "POST", "/control/revoke?subject=alice").statusCode());
    assertEquals(List.of(), pdp.revokedSubjects(), "nothing revoked by a stranger");
    PdpConfig moved = pdp.config().withListen(java.net.InetAddress.getLoopbackAddress(), 0);
    assertEquals(pdp.config().control(), moved.control(), "a listen override keeps the operators");
    assertEquals(200, call(null, "GET", "/health").statusCode());
    assertEquals(200, call(null, "GET", "/ready").statusCode());
  }

  @Test
  void eachOperatorDoesWhatItMayAndTheRevocationIsThePdpsAudited() throws Exception {
    assertEquals("{\"revoked\":[]}\n", call("viewer", "GET", "/control/revoked").body());
    assertEquals("{\"peps\":[]}\n", call("viewer", "GET", "/control/peps").body());
    assertEquals("{\"tunnels\":[]}\n", call("viewer", "GET", "/control/tunnels").body());
    HttpResponse<String> no = call("viewer", "POST", "/control/revoke?subject=alice");
    assertEquals(403, no.statusCode());
    assertEquals("operator viewer may not revoke (may view)\n", no.body());

    HttpResponse<String> yes =
        call("ops-1", "POST", "/control/revoke?subject=alice&reason=incident%2042");
    assertEquals(200, yes.statusCode(), yes.body());
    assertEquals("{\"subject\":\"alice\",\"revoked\":true}\n", yes.body());
    assertTrue(
        call("ops-1", "POST", "/control/revoke?subject=alice").body().contains("revoked already"));
    assertEquals("ops-1", pdp.revokedSubjects().get(0).by());
    assertEquals("incident 42", pdp.revokedSubjects().get(0).reason());
    String listed = call("viewer", "GET", "/control/revoked").body();
    assertTrue(
        listed.contains("\"subject\":\"alice\",\"by\":\"ops-1\",\"reason\":\"incident 42\""),
        listed);
    assertEquals(
        "{\"subject\":\"alice\",\"restored\":true}\n",
        call("ops-1", "POST", "/control/restore?subject=alice").body());
    assertEquals(List.of(), pdp.revokedSubjects());
    pdp.close();
    String audit = Files.readString(dir.resolve("audit.jsonl"));
    assertTrue(audit.contains("\"event\":\"subject-revoked\""), audit);
    assertTrue(audit.contains("\"by\":\"ops-1\""), audit);
    assertTrue(audit.contains("\"event\":\"subject-restored\""), audit);
  }

  @Test
  void mistakesAreNamed() throws Exception {
    HttpResponse<String> get = call("ops-1", "GET", "/control/revoke?subject=alice");
    assertEquals(405, get.statusCode());
    assertEquals("POST", get.headers().firstValue("Allow").orElse(""));
    assertEquals(404, call("ops-1", "GET", "/control/everything").statusCode());
    assertEquals(400, call("ops-1", "POST", "/control/revoke").statusCode());
    assertEquals(
        400, call("ops-1", "POST", "/control/revoke?subject=" + "a".repeat(300)).statusCode());
    assertEquals(400, call("ops-1", "POST", "/control/revoke?subject=al%0Aice").statusCode());
    assertEquals(List.of(), pdp.revokedSubjects());
  }

  @Test
  void operatorsNeedTheEndpointsTlsWithAClientCa() throws Exception {
    Path plain = dir.resolve("plain.xml");
    Files.writeString(
        plain,
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>\n"
            + "<metrics listen=\"127.0.0.1:0\">\n<operator name=\"ops-1\" may=\"view\"/></metrics>"
            + "</pdp>");
    ConfigException e = assertThrows(ConfigException.class, () -> PdpConfig.load(plain));
    assertTrue(e.getMessage().contains("client certificate") && e.line() == 3, e.getMessage());
    Files.writeString(
        dir.resolve("bad.xml"), config("<operator name=\"ops-1\" may=\"view delete\"/>"));
    ConfigException may =
        assertThrows(ConfigException.class, () -> PdpConfig.load(dir.resolve("bad.xml")));
    assertTrue(
        may.getMessage().contains("may delete (expected: view, revoke, close, reload, drain)"),
        may.getMessage());
  }
}
