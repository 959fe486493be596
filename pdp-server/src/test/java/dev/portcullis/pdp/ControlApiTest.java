package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  String config(String operators) {
    return """
        <pdp>
          <listen address="127.0.0.1" port="0"/>
          <client-type code="0xC0A5" engine="rules" policy="rules.xml"/>
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

  @BeforeEach
  void start() throws Exception {
    pki =
        DevCertificates.ensure(
            dir.resolve("pki"), List.of(), List.of("ops-1", "viewer", "intruder"));
    Files.writeString(dir.resolve("rules.xml"), RULES);
    Files.writeString(
        dir.resolve("pdp.xml"),
        config(
            "<operator name=\"ops-1\" may=\"view revoke\"/>"
                + "<operator name=\"viewer\" may=\"view\"/>"));
    pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 1);
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
    HttpRequest r =
        HttpRequest.newBuilder(
                URI.create("https://localhost:" + pdp.metricsAddress().getPort() + pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    return client(who).send(r, HttpResponse.BodyHandlers.ofString());
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
    assertTrue(may.getMessage().contains("may delete (expected: view, revoke)"), may.getMessage());
  }
}
