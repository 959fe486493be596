package dev.portcullis.active;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.auth.SessionRequest;
import dev.portcullis.active.code.CodeServer;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.source.PacketSink;
import dev.portcullis.active.source.Source;
import dev.portcullis.active.verify.Outcome;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Authorization Server's checks, the Code Server's refusals and Kci rotation, on a running
 * domain (ar-2 here may not run code 'limiter').
 */
@Timeout(60)
class DomainTest {
  @TempDir static Path tmp;
  static Domain domain;
  static CodeServer cs;
  static AuthServer as;
  static ActiveRouter ar1;
  static ActiveRouter ar2;
  static PacketSink sink;
  static DatagramSocket udp;
  static Source alice;
  static long now;

  @BeforeAll
  static void start() throws Exception {
    RosaConfig config =
        TestDomain.config(
            tmp,
            xml ->
                xml.replace(
                        "id=\"ar-2\" listen=\"127.0.0.1:",
                        "id=\"ar-2\" codes=\"counter tagger\" listen=\"127.0.0.1:")
                    .replaceFirst(
                        "(id=\"ar-2\".*?) codes=\"counter tagger limiter forward\"", "$1"));
    domain = new Domain(config, Clock.systemUTC());
    cs = domain.codeServer();
    as = domain.authServer();
    ar1 = domain.router("ar-1");
    ar2 = domain.router("ar-2");
    sink = new PacketSink(config.routers().get("ar-2").routes().get(0).nextHop());
    udp = new DatagramSocket(0, InetAddress.getLoopbackAddress());
    alice = domain.source("alice");
    now = System.currentTimeMillis() / 1000;
  }

  @AfterAll
  static void stop() {
    udp.close();
    sink.close();
    ar2.close();
    ar1.close();
    as.close();
    cs.close();
  }

  private static void send(byte[] p) throws Exception {
    udp.send(new DatagramPacket(p, p.length, domain.config().routers().get("ar-1").listen()));
  }

  private static void eventually(BooleanSupplier c, String what) {
    await().alias(what).until(c::getAsBoolean);
  }

  private static int status(ThrowingRequest r) {
    return assertThrows(Source.RefusedException.class, r::run).status();
  }

  interface ThrowingRequest {
    void run() throws Exception;
  }

  private static SessionRequest request(String user, long sst) {
    return TestDomain.request(user, sst, true);
  }

  @Test
  void onlyTheUsersOwnSignatureOverTheExactBytesIsAccepted() throws Exception {
    byte[] body = request("alice", now + 1).toJson();
    String sig = alice.sign(body);
    byte[] changed =
        new String(body, StandardCharsets.UTF_8)
            .replace("127.0.0.1\",\"sst", "127.0.0.2\",\"sst")
            .getBytes(StandardCharsets.UTF_8);
    assertNotEquals(
        new String(body, StandardCharsets.UTF_8), new String(changed, StandardCharsets.UTF_8));
    assertEquals(401, status(() -> alice.send(changed, sig)), "body changed after signing");
    Source bob = domain.source("bob");
    assertEquals(401, status(() -> alice.send(body, bob.sign(body))), "bob signs alice's request");
    assertEquals(
        400,
        status(() -> alice.send("{\"user\":".getBytes(StandardCharsets.UTF_8), sig)),
        "not JSON");
    alice.send(body, sig).destroy();
    assertEquals(401, status(() -> alice.send(body, sig)), "the same signed request again");
    String audit =
        Files.readString(domain.config().pkiDirectory().resolveSibling("auth-audit.jsonl"));
    assertTrue(
        audit.contains("\"decision\":\"granted\"") && audit.contains(sig),
        "grants are audited with the user's signature");
  }

  /** The refusal of a request for code between 127.0.0.1 and 127.0.0.1 (or {@code src}). */
  private static Source.RefusedException refused(
      Source who, String code, String src, long sst, long set, MacAlgorithm mac, boolean enc) {
    return assertThrows(
        Source.RefusedException.class,
        () -> who.request(code, src, "127.0.0.1", sst, set, mac, enc));
  }

  private static void assertSays(Source.RefusedException e, int status, String reason) {
    assertEquals(status, e.status(), e.getMessage());
    assertTrue(e.getMessage().contains(reason), e.getMessage());
  }

  @Test
  void theRulesDecideAndSayWhy() throws Exception {
    Source bob = domain.source("bob");
    MacAlgorithm sha = MacAlgorithm.HMAC_SHA256_128;
    String lo = "127.0.0.1";
    assertSays(
        refused(bob, "tagger", lo, now, now + 60, sha, true), 403, "no rule lets bob run tagger");
    assertSays(
        refused(bob, "counter", lo, now, now + 60, sha, false), 403, "payload encryption required");
    assertSays(
        refused(alice, "counter", lo, now, now + 3601, sha, false),
        403,
        "sessions last at most PT1H");
    assertSays(
        refused(alice, "counter", "10.0.0.1", now, now + 60, sha, false),
        403,
        "source 10.0.0.1 not in 127.0.0.0/8");
    assertSays(
        refused(alice, "counter", lo, now, now + 60, MacAlgorithm.HMAC_MD5_96, false),
        403,
        "hmac-md5-96 not allowed");
    assertSays(refused(alice, "counter", lo, now - 100, now - 50, sha, false), 400, "has passed");
    alice.request("counter", lo, lo, now + 7, now + 60, sha, false).destroy();
    assertSays(
        refused(alice, "counter", lo, now + 7, now + 60, sha, false),
        409,
        "already granted in this epoch"); // a GCM nonce never repeats under one key
  }

  @Test
  void aRouterGetsNeitherSecretNorModuleOfACodeItMayNotRun() throws Exception {
    SessionGrant g =
        alice.request(
            "limiter",
            "127.0.0.1",
            "127.0.0.1",
            now,
            now + 63,
            MacAlgorithm.HMAC_SHA256_128,
            false);
    PacketSealer s = g.sealer(domain.registry());
    send(s.seal(new byte[8]));
    eventually(() -> ar2.counters().get(Outcome.UNKNOWN_CODE) == 1, "ar-2 drops it: unknown code");
    assertTrue(ar1.counters().get(Outcome.ACCEPTED) >= 1, "ar-1 runs limiter");
    assertEquals(null, ar2.service(3), "no limiter module at ar-2");
    s.destroy();
  }

  /** New sessions use the new Kci; sessions of the old epoch keep verifying while it is kept. */
  @Test
  void rotationWithSessionsInFlight() throws Exception {
    SessionGrant old =
        alice.request(
            "tagger",
            "127.0.0.1",
            "127.0.0.1",
            now,
            now + 604,
            MacAlgorithm.HMAC_SHA256_128,
            false);
    PacketSealer before = old.sealer(domain.registry());
    send(before.seal("before".getBytes(StandardCharsets.US_ASCII)));
    int epoch = as.epoch("tagger");
    as.rotate();
    assertNotEquals(epoch, as.epoch("tagger"));
    SessionGrant fresh =
        alice.request(
            "tagger",
            "127.0.0.1",
            "127.0.0.1",
            now,
            now + 605,
            MacAlgorithm.HMAC_SHA256_128,
            false);
    assertEquals(as.epoch("tagger"), fresh.epoch());
    PacketSealer after = fresh.sealer(domain.registry());
    send(after.seal("after".getBytes(StandardCharsets.US_ASCII)));
    send(before.seal("before again".getBytes(StandardCharsets.US_ASCII)));
    eventually(
        () ->
            sink.payloads()
                .containsAll(
                    List.of(
                        "before;via=ar-1;via=ar-2",
                        "after;via=ar-1;via=ar-2",
                        "before again;via=ar-1;via=ar-2")),
        "all three delivered: " + sink.payloads() + " " + ar1.counters() + " " + ar2.counters());
    before.destroy();
    after.destroy();
  }
}
