package dev.portcullis.active;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.auth.SessionRequest;
import dev.portcullis.active.code.CodeServer;
import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.net.Https;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.source.Source;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a hostile tester and a bad day did to the Authorization Server and Code Server: replays
 * across restarts, copied requests, failed starts, slow and oversized requests, floods of
 * unauthenticated requests, numbers that wrapped.
 */
@Timeout(90)
class HardeningTest {
  @TempDir Path tmp;
  Domain domain;
  CodeServer cs;
  AuthServer as;
  long now;

  @BeforeEach
  void start() throws Exception {
    // Free ports are chosen before the servers bind them; another process (or a connection's
    // ephemeral port) can take one meanwhile: new ports, up to three times.
    for (int attempt = 1; ; attempt++) {
      domain = new Domain(TestDomain.config(tmp), Clock.systemUTC());
      cs = null;
      try {
        cs = domain.codeServer();
        as = domain.authServer();
        break;
      } catch (java.net.BindException e) {
        if (cs != null) {
          cs.close();
        }
        if (attempt == 3) {
          throw e;
        }
      }
    }
    now = System.currentTimeMillis() / 1000;
  }

  @AfterEach
  void stop() {
    if (as != null) {
      as.close();
    }
    if (cs != null) {
      cs.close();
    }
  }

  private static SessionRequest request(String user, long sst) {
    return TestDomain.request(user, sst, false);
  }

  private Path audit() {
    return domain.config().pkiDirectory().resolveSibling("auth-audit.jsonl");
  }

  @Test
  void aSignedRequestReplayedAfterARestartIsRefused() throws Exception {
    Source alice = domain.source("alice");
    byte[] body = request("alice", now + 1).toJson();
    String sig = alice.sign(body);
    alice.send(body, sig).destroy();
    as.close();
    as = domain.authServer();
    Source.RefusedException e =
        assertThrows(Source.RefusedException.class, () -> alice.send(body, sig));
    assertEquals(401, e.status());
    assertTrue(e.getMessage().contains("replayed"), e.getMessage());
  }

  @Test
  void aCopiedRequestYieldsNoKeysToAnyoneButItsSigner() throws Exception {
    Source alice = domain.source("alice");
    byte[] body = request("alice", now + 1).toJson();
    String sig = alice.sign(body); // as the audit file shows it
    Source bob = domain.source("bob");
    Source.RefusedException e =
        assertThrows(Source.RefusedException.class, () -> bob.send(body, sig));
    assertEquals(401, e.status());
    assertTrue(e.getMessage().contains("keys go only to the signer"), e.getMessage());
    Source anonymous =
        new Source(
            domain.config().authServer().listen(),
            domain.pki().clientContext(null),
            "alice",
            domain.pki().privateKey("alice"),
            Clock.systemUTC());
    assertThrows(IOException.class, () -> anonymous.send(body, sig), "no client certificate");
    alice.send(body, sig).destroy(); // the signer still can, once
  }

  @Test
  void failedStartsChangeNothingShared() throws Exception {
    int code = domain.config().codes().get("counter").id();
    List<Integer> epochs = cs.epochs(code);
    int running = as.epoch("counter");
    byte[] auditBefore = Files.readAllBytes(audit());
    for (int i = 0; i < 4; i++) {
      IOException e = assertThrows(IOException.class, () -> domain.authServer());
      assertTrue(e.getMessage().contains("in use by another writer"), e.getMessage());
      // Its own files, the running server's port: fails binding, still before any rotation.
      Path other = tmp.resolve("other-" + i).resolve("auth-audit.jsonl");
      IOException bind =
          assertThrows(
              IOException.class,
              () -> authServer(as.address(), other, HttpsEndpoint.Limits.DEFAULT));
      assertTrue(bind.getMessage().contains("cannot listen"), bind.getMessage());
    }
    assertEquals(epochs, cs.epochs(code), "no Kci rotated by a failed start");
    assertTrue(cs.epochs(code).contains(running));
    assertEquals(new String(auditBefore), new String(Files.readAllBytes(audit())));
    aliceIsGranted();
  }

  /** A legitimate request, granted. */
  private void aliceIsGranted() throws Exception {
    domain
        .source("alice")
        .request(
            "counter",
            "127.0.0.1",
            "127.0.0.1",
            now + 1,
            now + 60,
            MacAlgorithm.HMAC_SHA256_128,
            false)
        .destroy();
  }

  private SSLSocket connect(AuthServer server) throws Exception {
    SSLSocket s =
        (SSLSocket)
            domain
                .pki()
                .clientContext("alice")
                .getSocketFactory()
                .createSocket(server.address().getAddress(), server.address().getPort());
    s.setSoTimeout(10_000);
    s.startHandshake();
    return s;
  }

  private static String answer(SSLSocket s) throws IOException {
    InputStream in = s.getInputStream();
    byte[] b = in.readNBytes(12);
    return new String(b, StandardCharsets.US_ASCII);
  }

  /** An AS with a one-second request deadline on its own files and port. */
  private AuthServer strictServer() throws Exception {
    as.close();
    as = null;
    return authServer(
        domain.config().authServer().listen(),
        audit(),
        new HttpsEndpoint.Limits(64, 16, 8 * 1024, 64 * 1024, Duration.ofSeconds(1), 4));
  }

  private AuthServer authServer(
      InetSocketAddress address, Path auditFile, HttpsEndpoint.Limits limits) throws Exception {
    return new AuthServer(
        domain.config(),
        domain.pki(),
        domain.registry(),
        new CodeServerClient(
            domain.config().codeServer().listen(),
            domain.pki().clientContext(RosaConfig.AUTH_SERVER_IDENTITY)),
        Clock.systemUTC(),
        address,
        auditFile,
        limits,
        null);
  }

  @Test
  void slowRequestsTimeOutAndDoNotStarveOthers() throws Exception {
    as = strictServer();
    List<SSLSocket> slow = new ArrayList<>();
    try {
      for (int i = 0; i < 12; i++) {
        SSLSocket s = connect(as);
        s.getOutputStream()
            .write("POST /v1/sessions HTTP/1.1\r\nHo".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        slow.add(s);
      }
      long t0 = System.nanoTime();
      aliceIsGranted();
      assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "a legitimate request is served at once");
      for (SSLSocket s : slow) {
        assertEquals("HTTP/1.1 408", answer(s));
      }
      assertEquals(12, as.httpStats().timedOut.sum());
    } finally {
      for (SSLSocket s : slow) {
        s.close();
      }
    }
  }

  /**
   * One host cannot take every connection slot: beyond 16 (here) its oldest idle connection makes
   * room for its new one (ConnectionSlots), so a flood costs it its own slots, nobody else's, and
   * its own next request still gets in.
   */
  @Test
  void oneAddressGetsABoundedShareOfConnections() throws Exception {
    as = strictServer();
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < 16; i++) {
        Socket s = new Socket(as.address().getAddress(), as.address().getPort());
        s.setSoTimeout(5_000);
        held.add(s);
      }
      Socket extra = new Socket(as.address().getAddress(), as.address().getPort());
      held.add(extra);
      assertEquals(-1, held.get(0).getInputStream().read(), "the oldest idle one is closed");
      assertEquals(0, as.httpStats().connectionsRefused.sum(), "the 17th is not refused");
      aliceIsGranted(); // and a request of that address is served
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  @Test
  void oversizedBodiesGet413BeforeTheyAreRead() throws Exception {
    try (SSLSocket s = connect(as)) {
      s.getOutputStream()
          .write(
              ("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      assertEquals("HTTP/1.1 413", answer(s));
    }
    try (SSLSocket s = connect(as)) {
      OutputStream out = s.getOutputStream();
      out.write(
          "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      byte[] chunk = new byte[64 * 1024];
      try {
        for (int i = 0; i < 40; i++) { // 2.5 MB
          out.write(
              (Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(chunk);
          out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
      } catch (IOException closed) {
        // the server answered and closed mid-body, as it should
      }
      assertEquals("HTTP/1.1 413", answer(s));
    }
    assertEquals(2, as.httpStats().tooLarge.sum());
  }

  @Test
  void unauthenticatedFloodsAreCountedNotWrittenOut() throws Exception {
    HttpClient http = HttpClient.newBuilder().sslContext(domain.pki().clientContext("bob")).build();
    URI uri =
        URI.create(
            "https://127.0.0.1:"
                + domain.config().authServer().listen().getPort()
                + "/v1/sessions");
    long before = Files.size(audit());
    byte[] junk = new byte[60 * 1024];
    Arrays.fill(junk, (byte) 'x');
    for (int i = 0; i < 30; i++) {
      byte[] body = (i % 2 == 0 ? junk : request("alice", now + 1).toJson());
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(uri)
                  .header(AuthServer.SIGNATURE_HEADER, "AAAA")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(i % 2 == 0 ? 400 : 401, r.statusCode(), r.body());
    }
    assertEquals(before, Files.size(audit()), "nothing written per unauthenticated request");
    assertEquals(15L, as.unauthenticatedRefusals().get("malformed"));
    assertEquals(15L, as.unauthenticatedRefusals().get("bad signature"));
  }

  /** What an unauthenticated request says is echoed printable and short: no forged log lines. */
  @Test
  void unauthenticatedTextIsEchoedPrintableAndShort() throws Exception {
    String user = "mallory\n12:00:00 INFO  AuthServer - granted everything" + "x".repeat(500);
    byte[] body = TestDomain.request("alice", now + 1, false).toJson();
    String json =
        new String(body, StandardCharsets.UTF_8)
            .replace("\"alice\"", Https.JSON.writeValueAsString(user));
    Source.RefusedException e =
        assertThrows(
            Source.RefusedException.class,
            () -> domain.source("bob").send(json.getBytes(StandardCharsets.UTF_8), "AAAA"));
    assertEquals(401, e.status());
    assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    assertTrue(e.getMessage().length() < 250, e.getMessage());
  }

  @Test
  void codeNumbersDoNotWrap() throws Exception {
    HttpClient http =
        HttpClient.newBuilder().sslContext(domain.pki().clientContext("ar-1")).build();
    int code = domain.config().codes().get("counter").id();
    long wrapped = (1L << 32) + Integer.toUnsignedLong(code);
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "https://127.0.0.1:"
                            + domain.config().codeServer().listen().getPort()
                            + "/v1/codes/"
                            + wrapped
                            + "/module"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(404, r.statusCode());
    assertTrue(r.body().contains("is not a whole number from 0 to 4294967295"), r.body());
  }
}
