package dev.portcullis.pcmm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import dev.portcullis.support.LogLines;
import dev.portcullis.support.Waits;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /gates} end to end: application managers with their tokens, against simulated CMTSs,
 * through the policy server {@code pcmm-server} runs (PcmmServer from a pcmm.xml).
 */
@Timeout(60)
class GateApiTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final String RULES =
      """
      <rules>
        %s
        <rule id="voice" decision="install" reason="voice to the SIP proxy">
          <match operation="ACCESS" service="VoIP_UP Gold" destination="192.0.2.10/32" protocol="udp"/>
        </rule>
        <default decision="remove" reason="no rule allows this gate"/>
      </rules>
      """;

  @TempDir Path dir;
  private CmtsSimulator cmtss;
  private PcmmServer server;
  private String voice;
  private String video;

  @BeforeEach
  void start() throws Exception {
    cmtss =
        new CmtsSimulator(
            2,
            new CmtsSimulator.Profile(Set.of("VoIP_UP"), 64, 1, 0, true)); // no "Gold" provisioned
    Files.writeString(dir.resolve("rules.xml"), RULES.formatted(""));
    StringBuilder xml =
        new StringBuilder(
            "<pcmm-server><policy file=\"rules.xml\"/><limits gates-per-subscriber=\"2\"/>"
                + "<audit file=\"audit.jsonl\"/><http listen=\"127.0.0.1:0\">"
                + "<application-manager name=\"voice\" app-type=\"1\" am-tag=\"1\""
                + " token=\"voice.token\" create=\"true\"/>"
                + "<application-manager name=\"video\" app-type=\"2\" am-tag=\"2\""
                + " token=\"video.token\" create=\"true\"/></http>");
    cmtss
        .addresses()
        .forEach(
            (name, a) ->
                xml.append("<cmts name=\"")
                    .append(name)
                    .append("\" address=\"127.0.0.1:")
                    .append(a.getPort())
                    .append("\"/>"));
    Files.writeString(dir.resolve("pcmm.xml"), xml + "</pcmm-server>");
    server = PcmmServer.start(dir.resolve("pcmm.xml"));
    server.ready().get(20, TimeUnit.SECONDS);
    voice = Files.readString(dir.resolve("voice.token")).strip();
    video = Files.readString(dir.resolve("video.token")).strip();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (cmtss != null) {
      cmtss.close();
    }
  }

  private HttpResponse<String> call(String method, String path, String token, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.http().address().getPort() + path))
            .timeout(Duration.ofSeconds(20))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String gate(String cmts, String subscriber, String serviceClass) {
    return """
        {"cmts": "%s", "subscriber": "%s", "direction": "upstream", "service-class": "%s",
         "dscp": 46, "timers": {"t1": 180},
         "classifiers": [{"protocol": "udp", "source": "%s", "destination": "192.0.2.10",
                          "destination-port": 5060}]}
        """
        .formatted(cmts, subscriber, serviceClass, subscriber);
  }

  private static JsonNode json(HttpResponse<String> r) throws Exception {
    return GateJson.JSON.readTree(r.body());
  }

  @Test
  void anApplicationManagerSetsReadsListsAndDeletesItsGates() throws Exception {
    HttpResponse<String> set = call("POST", "/gates", voice, gate("cmts-1", "10.0.0.1", "VoIP_UP"));
    assertEquals(201, set.statusCode(), set.body());
    JsonNode g = json(set);
    assertEquals("cmts-1", g.get("cmts").asText());
    assertEquals("authorized", g.get("state").asText());
    String href = g.get("href").asText();
    assertEquals(1, cmtss.cmts("cmts-1").gates());

    assertEquals(1, json(call("GET", "/gates", voice, null)).size());
    assertEquals(1, json(call("GET", "/gates?subscriber=10.0.0.1", voice, null)).size());
    assertEquals(0, json(call("GET", "/gates?subscriber=10.0.0.2", voice, null)).size());
    HttpResponse<String> info = call("GET", href, voice, null);
    assertEquals(200, info.statusCode(), info.body());
    assertEquals(g.get("gate-id"), json(info).get("gate-id"));

    // another application manager neither sees nor touches it
    assertEquals(0, json(call("GET", "/gates", video, null)).size());
    assertEquals(404, call("GET", href, video, null).statusCode());
    assertEquals(404, call("DELETE", href, video, null).statusCode());
    assertEquals(1, cmtss.cmts("cmts-1").gates());

    HttpResponse<String> deleted = call("DELETE", href, voice, null);
    assertEquals(200, deleted.statusCode(), deleted.body());
    assertEquals("deleted", json(deleted).get("state").asText());
    assertEquals(0, cmtss.gates());
    assertEquals(0, json(call("GET", "/gates", voice, null)).size());
    assertEquals(404, call("DELETE", href, voice, null).statusCode());

    String metrics = call("GET", "/metrics", null, null).body();
    assertTrue(
        metrics.contains("# HELP portcullis_pcmm_gate_sets_total Gate-Sets by outcome")
            && metrics.contains(
                "portcullis_pcmm_gate_sets_total{component=\"pcmm\",result=\"set\"} 1.0")
            && metrics.contains("portcullis_pcmm_gates{component=\"pcmm\"} 0.0"),
        metrics);
  }

  @Test
  void withoutAValidTokenNothingIsAnswered() throws Exception {
    String body = gate("cmts-1", "10.0.0.1", "VoIP_UP");
    try (LogLines log = LogLines.of(GateApi.class)) {
      for (int i = 0; i < 50; i++) {
        assertEquals(401, call("GET", "/gates", "00".repeat(16 + i), null).statusCode());
      }
      // anyone can cause these at will: the first is said, the rest counted
      assertEquals(1, log.warnings().size(), log.lines().toString());
    }
    assertEquals(401, call("POST", "/gates", null, body).statusCode());
    assertEquals(401, call("POST", "/gates", "00".repeat(32), body).statusCode());
    assertEquals(401, call("POST", "/gates", "not hex", body).statusCode());
    assertEquals(401, call("POST", "/gates", voice.substring(2), body).statusCode());
    assertEquals(401, call("GET", "/gates", voice + "00", null).statusCode());
    assertEquals(0, cmtss.gates());
  }

  @Test
  void eachRefusalSaysWhoRefusedAndWhy() throws Exception {
    HttpResponse<String> badJson = call("POST", "/gates", voice, "{\"cmts\": ");
    assertEquals(400, badJson.statusCode());
    // nested past Jackson's limit (1,000 deep, within the 64 KiB body): refused as JSON, not a 500
    HttpResponse<String> deep = call("POST", "/gates", voice, "[".repeat(5000) + "]".repeat(5000));
    assertEquals(400, deep.statusCode(), deep.body());
    assertEquals(400, call("POST", "/gates", voice, "").statusCode());
    assertTrue(json(badJson).get("error").asText().startsWith("not JSON"), badJson.body());
    HttpResponse<String> unknown =
        call(
            "POST",
            "/gates",
            voice,
            gate("cmts-1", "10.0.0.1", "VoIP_UP").replace("\"dscp\"", "\"dcsp\""));
    assertEquals(400, unknown.statusCode());
    assertTrue(unknown.body().contains("unknown field dcsp"), unknown.body());
    HttpResponse<String> port =
        call(
            "POST",
            "/gates",
            voice,
            gate("cmts-1", "10.0.0.1", "VoIP_UP").replace("5060", "65536"));
    assertTrue(port.body().contains("classifiers[0].destination-port: 65536"), port.body());
    HttpResponse<String> name =
        call(
            "POST",
            "/gates",
            voice,
            gate("cmts-1", "10.0.0.1", "VoIP_UP").replace("192.0.2.10", "sip.example"));
    assertTrue(name.body().contains("classifiers[0].destination"), name.body());
    assertEquals(
        404, call("POST", "/gates", voice, gate("cmts-9", "10.0.0.1", "VoIP_UP")).statusCode());

    HttpResponse<String> policy = call("POST", "/gates", voice, gate("cmts-1", "10.0.0.1", "BE"));
    assertEquals(403, policy.statusCode(), policy.body());
    assertTrue(policy.body().contains("no rule allows this gate"), policy.body());

    // allowed by the policy, but the CMTS has no such service class: its PacketCable Error
    HttpResponse<String> cmts = call("POST", "/gates", voice, gate("cmts-1", "10.0.0.1", "Gold"));
    assertEquals(502, cmts.statusCode(), cmts.body());
    assertEquals(11, json(cmts).get("pcmm-error").asInt(), cmts.body());

    assertEquals(405, call("PUT", "/gates", voice, "{}").statusCode());
    assertEquals(0, cmtss.gates());
  }

  /** Mangled bodies (a fixed seed: flipped, dropped and doubled bytes): a 4xx each, never a 500. */
  @Test
  void mangledRequestsAreRefusedNeverFailed() throws Exception {
    java.util.Random random = new java.util.Random(33);
    byte[] valid = gate("cmts-1", "10.0.0.1", "VoIP_UP").getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < 300; i++) {
      byte[] b = valid.clone();
      int at = random.nextInt(b.length);
      switch (i % 3) {
        case 0 -> b[at] = (byte) random.nextInt(256);
        case 1 -> b = java.util.Arrays.copyOf(b, at);
        default -> {
          byte[] c = new byte[b.length + 1];
          System.arraycopy(b, 0, c, 0, at + 1);
          System.arraycopy(b, at, c, at + 1, b.length - at);
          b = c;
        }
      }
      HttpResponse<String> r =
          call("POST", "/gates", voice, new String(b, StandardCharsets.ISO_8859_1));
      assertTrue(
          r.statusCode() == 201 || (r.statusCode() >= 400 && r.statusCode() < 500),
          r.statusCode() + " for " + new String(b, StandardCharsets.ISO_8859_1) + ": " + r.body());
    }
  }

  @Test
  void aPolicyChangeDeletesTheGatesItNoLongerAllows() throws Exception {
    assertEquals(
        201, call("POST", "/gates", voice, gate("cmts-1", "10.0.0.1", "VoIP_UP")).statusCode());
    assertEquals(
        201, call("POST", "/gates", voice, gate("cmts-2", "10.0.0.1", "VoIP_UP")).statusCode());
    assertEquals(
        201, call("POST", "/gates", voice, gate("cmts-2", "10.0.0.2", "VoIP_UP")).statusCode());
    // the limit (2 a subscriber) counts over both CMTSs
    assertEquals(
        403, call("POST", "/gates", voice, gate("cmts-1", "10.0.0.1", "VoIP_UP")).statusCode());

    Files.writeString(
        dir.resolve("rules.xml"),
        RULES.formatted(
            "<rule id=\"barred\" decision=\"remove\" reason=\"barred\"><match subject=\"10.0.0.1\"/></rule>"));
    assertEquals(2, server.reload().get(20, TimeUnit.SECONDS));
    assertEquals(1, cmtss.gates());
    assertEquals(1, json(call("GET", "/gates", voice, null)).size());

    // a file with a mistake changes nothing
    Files.writeString(dir.resolve("rules.xml"), "<rules><rule/></rules>");
    assertTrue(
        org.junit.jupiter.api.Assertions.assertThrows(
                dev.portcullis.support.ConfigException.class, server::reload)
            .getMessage()
            .contains("rules.xml"));
    assertEquals(1, cmtss.gates());
  }

  @Test
  void aCmtsThatIsDownIsA503AndReadinessSaysWhich() throws Exception {
    cmtss.close();
    // the policy server learns of the loss on its own loop: asked until it has
    HttpResponse<String> r =
        Waits.await()
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> call("POST", "/gates", voice, gate("cmts-1", "10.0.0.1", "VoIP_UP")),
                x -> x.statusCode() == 503);
    assertEquals(503, r.statusCode(), r.body());
    HttpResponse<String> ready = call("GET", "/ready", null, null);
    assertEquals(503, ready.statusCode());
    assertTrue(ready.body().contains("not connected: cmts-1, cmts-2"), ready.body());
    cmtss = null;
  }
}
