package dev.portcullis.pcmm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.portcullis.pcmm.cmts.CmtsSimulator;
import dev.portcullis.support.pki.DevCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /gates} over HTTPS: the endpoint's certificate, and an application manager bound to its
 * client certificate, whose token is worth nothing without it; the probes need none.
 */
@Timeout(60)
class GateApiTlsTest {
  @TempDir Path dir;
  private CmtsSimulator cmtss;
  private PcmmServer server;
  private DevCertificates.Pki pki;

  @BeforeEach
  void start() throws Exception {
    pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("voice", "intruder"));
    cmtss = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
    Files.writeString(
        dir.resolve("pcmm.xml"),
        """
        <pcmm-server>
          <limits gates-per-subscriber="2"/>
          <http listen="127.0.0.1:0">
            <tls certificate="%s" key="%s" client-ca="%s"/>
            <application-manager name="voice" app-type="1" am-tag="1" token="voice.token"
                                 create="true" client-name="voice"/>
            <application-manager name="video" app-type="2" am-tag="2" token="video.token"
                                 create="true"/>
          </http>
          <cmts name="c" address="127.0.0.1:%d"/>
        </pcmm-server>
        """
            .formatted(
                pki.pdp().certificateChain(),
                pki.pdp().privateKey(),
                pki.caCertificate(),
                cmtss.cmtss().get(0).address().getPort()));
    server = PcmmServer.start(dir.resolve("pcmm.xml"));
    server.ready().get(20, TimeUnit.SECONDS);
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

  /** A client trusting the development CA, presenting {@code pep}'s certificate (null: none). */
  private HttpClient client(String pep) throws Exception {
    return HttpClient.newBuilder()
        .sslContext(DevCertificates.clientContext(pki, pep))
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  private int get(HttpClient client, String scheme, String path, String tokenFile)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(
                URI.create(scheme + "://localhost:" + server.http().address().getPort() + path))
            .timeout(Duration.ofSeconds(10));
    if (tokenFile != null) {
      b.header("Authorization", "Bearer " + Files.readString(dir.resolve(tokenFile)).strip());
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  @Test
  void aTokenBoundToACertificateIsWorthNothingWithoutIt() throws Exception {
    assertEquals(200, get(client("voice"), "https", "/gates", "voice.token"));
    assertEquals(401, get(client(null), "https", "/gates", "voice.token"));
    assertEquals(401, get(client("intruder"), "https", "/gates", "voice.token"));
    // a manager not bound to a certificate: its token alone, as before
    assertEquals(200, get(client(null), "https", "/gates", "video.token"));
    assertEquals(200, get(client("intruder"), "https", "/gates", "video.token"));
  }

  @Test
  void probesNeedNoCertificateAndPlainHttpIsNotServed() throws Exception {
    assertEquals(200, get(client(null), "https", "/health", null));
    assertEquals(200, get(client(null), "https", "/ready", null));
    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    assertThrows(IOException.class, () -> get(plain, "http", "/gates", "video.token"));
  }
}
