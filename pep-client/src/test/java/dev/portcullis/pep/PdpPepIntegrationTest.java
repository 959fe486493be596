package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.SyncStateRequest;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Waits;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** PDP and PEP over real loopback sockets. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PdpPepIntegrationTest {
  @TempDir Path dir;

  static final Context CTX = new Context(Context.R_INCOMING, 0);

  static AccessRequest ssh(String subject) throws Exception {
    return new AccessRequest(
        AccessOperation.ACCESS,
        subject,
        null,
        null,
        null,
        null,
        InetAddress.getByName("10.1.2.3"),
        22,
        6,
        "ssh",
        null,
        null,
        null);
  }

  static PepClient pep(PdpServer s, String id, int clientType, PepListener l) {
    return PepClient.builder()
        .pdp(s.address())
        .pepId(id)
        .clientType(clientType)
        .listener(l)
        .requestTimeout(Duration.ofSeconds(5))
        .reconnect(Duration.ofMillis(50), Duration.ofMillis(500))
        .build();
  }

  static <T> T await(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aFullSessionOpensDecidesReportsDeletesAndCloses() throws Exception {
    try (PdpServer s = Pdps.start(dir, "")) {
      try (PepClient pep = pep(s, "gw-1", AccessRequest.CLIENT_TYPE, new PepListener() {})) {
        await(pep.open());
        assertTrue(pep.isOpen());
        PepDecision granted = await(pep.request("h1", CTX, ssh("alice")));
        assertTrue(granted.granted());
        assertEquals("ssh", granted.data().ruleId());
        assertEquals(3600L, granted.data().validForSeconds());
        assertTrue(granted.solicited());
        PepDecision denied = await(pep.request("h2", CTX, ssh("mallory")));
        assertFalse(denied.granted());
        assertEquals("default", denied.data().ruleId());
        pep.report("h1", ReportType.SUCCESS);
        pep.delete("h2", ReasonCode.MANAGEMENT);
        assertEquals(Map.of("h1", granted), await(pep.installed()));
        assertEquals(List.of("gw-1"), s.connectedPeps());
      }
      Waits.await().until(() -> s.connectedPeps().isEmpty());
      assertEquals(List.of(), s.connectedPeps(), "the PEP's Client-Close ended the connection");
      assertEquals(2, s.stats().decisions());
      assertEquals(1, s.stats().reports());
    }
    String audit = Files.readString(dir.resolve("audit.jsonl"));
    assertTrue(audit.contains("\"event\":\"decision\""), audit);
    assertTrue(audit.contains("\"rule\":\"ssh\""), audit);
    assertTrue(audit.contains("\"event\":\"report\""), audit);
    assertTrue(audit.contains("\"event\":\"deleted\""), audit);
    // Every record about the connection names the PEP and where it connected from.
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    int connectionRecords = 0;
    for (String line : audit.split("\n")) {
      var r = json.readTree(line);
      String event = r.get("event").asText();
      if (!event.equals("started") && !event.equals("stopped")) {
        connectionRecords++;
        assertEquals("gw-1", r.path("pep").asText(), line);
        assertTrue(r.path("peer").asText().startsWith("127.0.0.1:"), line);
      }
    }
    assertTrue(connectionRecords >= 6, audit);
    assertTrue(AuditChain.verify(dir.resolve("audit.jsonl")).intact(), "the audit file verifies");
  }

  @Test
  void anUnsupportedClientTypeIsClosedWithError6() throws Exception {
    try (PdpServer s = Pdps.start(dir, "");
        PepClient pep = pep(s, "gw-1", 0x1234, new PepListener() {})) {
      ExecutionException e = assertThrows(ExecutionException.class, () -> await(pep.open()));
      PepException p = assertInstanceOf(PepException.class, e.getCause());
      assertEquals(ErrorCode.UNSUPPORTED_CLIENT_TYPE, p.error());
    }
  }

  @Test
  void aRedirectIsFollowedToTheSecondPdp() throws Exception {
    Path b = Files.createDirectories(dir.resolve("b"));
    try (PdpServer second = Pdps.start(b, "")) {
      String redirect =
          "<redirect pep=\"legacy-*\" address=\"127.0.0.1\" port=\""
              + second.address().getPort()
              + "\"/>";
      try (PdpServer first = Pdps.start(dir, redirect);
          PepClient pep = pep(first, "legacy-7", AccessRequest.CLIENT_TYPE, new PepListener() {})) {
        await(pep.open());
        assertEquals(second.address().getPort(), pep.pdp().getPort());
        assertTrue(await(pep.request("h", CTX, ssh("alice"))).granted());
        assertEquals(0, first.stats().decisions());
        assertEquals(1, second.stats().decisions());
      }
    }
  }

  @Test
  void aPolicyReloadPushesExactlyTheChangedDecisions() throws Exception {
    try (PdpServer s = Pdps.start(dir, "")) {
      Map<String, PepDecision> pushedToA = new ConcurrentHashMap<>();
      Map<String, PepDecision> pushedToB = new ConcurrentHashMap<>();
      try (PepClient a =
              pep(
                  s,
                  "pep-a",
                  AccessRequest.CLIENT_TYPE,
                  new PepListener() {
                    @Override
                    public void decisionChanged(String handle, PepDecision d) {
                      pushedToA.put(handle, d);
                    }
                  });
          PepClient b =
              pep(
                  s,
                  "pep-b",
                  AccessRequest.CLIENT_TYPE,
                  new PepListener() {
                    @Override
                    public void decisionChanged(String handle, PepDecision d) {
                      pushedToB.put(handle, d);
                    }
                  })) {
        await(a.open());
        await(b.open());
        assertTrue(await(a.request("ssh", CTX, ssh("alice"))).granted());
        AccessRequest web =
            new AccessRequest(
                AccessOperation.ACCESS,
                "carol",
                null,
                null,
                null,
                null,
                null,
                443,
                6,
                "https",
                null,
                null,
                null);
        assertTrue(await(b.request("web", CTX, web)).granted());

        // A bad file is rejected and changes nothing.
        Pdps.write(dir, "rules.xml", "<rules><rule id=\"x\" decision=\"maybe\"/></rules>");
        ConfigException bad =
            assertThrows(ConfigException.class, () -> s.reload(AccessRequest.CLIENT_TYPE));
        assertTrue(bad.getMessage().contains("rules.xml:1:"), bad.getMessage());

        // ssh is no longer allowed; web still is.
        Pdps.write(
            dir,
            "rules.xml",
            Pdps.RULES
                .replace(
                    "<rule id=\"ssh\" decision=\"install\"", "<rule id=\"ssh\" decision=\"remove\"")
                .replaceFirst("<grant valid-for=\"PT1H\"/>", ""));
        s.reload(AccessRequest.CLIENT_TYPE);
        Waits.await().until(() -> !pushedToA.isEmpty());
        assertEquals(1, pushedToA.size());
        assertFalse(pushedToA.get("ssh").granted());
        assertFalse(pushedToA.get("ssh").solicited());
        // The reload queued each connection's re-evaluation on its event loop before it returned,
        // so a push to B, had there been one, reaches B before the answer to a request sent now.
        assertTrue(await(b.request("web-2", CTX, web)).granted());
        assertTrue(pushedToB.isEmpty(), "B's decision did not change: " + pushedToB);
        assertFalse(
            await(a.installed()).get("ssh").granted(), "the installed state follows the push");
        assertEquals(1, s.stats().unsolicitedDecisions());
      }
    }
  }

  @Test
  void synchronizeMakesThePepResendItsRequests() throws Exception {
    try (PdpServer s = Pdps.start(dir, "");
        PepClient pep = pep(s, "gw-1", AccessRequest.CLIENT_TYPE, new PepListener() {})) {
      await(pep.open());
      await(pep.request("h1", CTX, ssh("alice")));
      await(pep.request("h2", CTX, ssh("bob")));
      s.synchronize(AccessRequest.CLIENT_TYPE);
      Waits.await().until(() -> s.stats().decisions() >= 4);
      assertEquals(4, s.stats().decisions(), "two requests, then both again after SSQ");
    }
  }

  @Test
  void multilevelSessionsOverCops() throws Exception {
    try (PdpServer s = Pdps.start(dir, "");
        PepClient pep = pep(s, "mysea-proxy", 0xC0A6, new PepListener() {})) {
      await(pep.open());
      AccessRequest readIntel =
          new AccessRequest(
              AccessOperation.ACCESS,
              "alice",
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              "intel",
              AccessMode.READ,
              null,
              null);
      assertFalse(await(pep.request("c1", CTX, readIntel)).granted(), "no session yet");
      AccessRequest login =
          new AccessRequest(
              AccessOperation.LOGIN,
              "alice",
              2,
              List.of("NATO"),
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null);
      PepDecision l = await(pep.request("login", CTX, login));
      assertTrue(l.granted());
      assertEquals(2, l.data().grantedLevel());
      assertTrue(await(pep.request("c2", CTX, readIntel)).granted(), "S[NATO] reads C[NATO]");
      AccessRequest writeIntel =
          new AccessRequest(
              AccessOperation.ACCESS,
              "alice",
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              "intel",
              AccessMode.WRITE,
              null,
              null);
      assertFalse(await(pep.request("c3", CTX, writeIntel)).granted(), "no write down");
      AccessRequest down =
          new AccessRequest(
              AccessOperation.CHANGE_LEVEL,
              "alice",
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              1,
              null);
      assertTrue(await(pep.request("login", CTX, down)).granted());
      assertTrue(await(pep.request("c4", CTX, writeIntel)).granted(), "C[NATO] writes C[NATO]");
    }
  }

  /**
   * A PDP alone (its sessions its own, no store) re-decides a subject's installed access when that
   * subject's session moves or ends, as a fleet's PDP does: an access allowed at SECRET is removed
   * when the session drops to UNCLASSIFIED, and when it ends. (Before, only a fleet's PDP pushed
   * these; a PDP alone let an ended session's connections live on.)
   */
  @Test
  void aSessionChangeAtAPdpAloneRemovesTheAccessItNoLongerAllows() throws Exception {
    Map<String, PepDecision> pushed = new ConcurrentHashMap<>();
    try (PdpServer s = Pdps.start(dir, "");
        PepClient pep =
            pep(
                s,
                "mysea-proxy",
                0xC0A6,
                new PepListener() {
                  @Override
                  public void decisionChanged(String handle, PepDecision d) {
                    pushed.put(handle, d);
                  }
                })) {
      await(pep.open());
      assertTrue(
          await(pep.request("login", CTX, AccessRequest.login("alice", 2, List.of("NATO"))))
              .granted());
      AccessRequest readIntel = AccessRequest.access("alice", "intel", AccessMode.READ);
      assertTrue(await(pep.request("read-1", CTX, readIntel)).granted(), "S[NATO] reads intel");
      assertTrue(await(pep.request("login", CTX, AccessRequest.changeLevel("alice", 0))).granted());
      Waits.await().until(() -> pushed.containsKey("read-1"));
      assertFalse(pushed.get("read-1").granted(), "no read up from UNCLASSIFIED: removed");
      assertTrue(await(pep.request("login", CTX, AccessRequest.changeLevel("alice", 2))).granted());
      assertTrue(await(pep.request("read-2", CTX, readIntel)).granted());
      pep.delete("login", ReasonCode.TEAR); // the session ends with its login's request state
      Waits.await().until(() -> pushed.containsKey("read-2"));
      assertFalse(pushed.get("read-2").granted(), "the session ended: removed");
    }
  }

  // ---- timers and hostile input -----------------------------------------------------------------

  private static byte[] readMessage(InputStream in) throws IOException {
    DataInputStream d = new DataInputStream(in);
    byte[] header = new byte[8];
    d.readFully(header);
    int len =
        ((header[4] & 0xFF) << 24)
            | ((header[5] & 0xFF) << 16)
            | ((header[6] & 0xFF) << 8)
            | (header[7] & 0xFF);
    byte[] m = Arrays.copyOf(header, len);
    d.readFully(m, 8, len - 8);
    return m;
  }

  private static final String ONE_SECOND_KEEP_ALIVE =
      "<timers keepalive=\"PT1S\" handshake=\"PT2S\"/>";

  @Test
  void aSilentPepIsDroppedWhenItsKeepAliveTimerRunsOut() throws Exception {
    try (PdpServer s = Pdps.start(dir, ONE_SECOND_KEEP_ALIVE);
        Socket sock = new Socket()) {
      sock.connect(s.address(), 2000);
      sock.setSoTimeout(5000);
      sock.getOutputStream()
          .write(CopsCodec.encode(ClientOpen.of(AccessRequest.CLIENT_TYPE, "sleepy")));
      CopsMessage cat = CopsCodec.decode(readMessage(sock.getInputStream()));
      assertEquals(1, ((ClientAccept) cat).kaTimer().seconds());
      long t0 = System.nanoTime();
      CopsMessage cc = CopsCodec.decode(readMessage(sock.getInputStream()));
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertEquals(ErrorCode.COMMUNICATION_FAILURE.code(), ((ClientClose) cc).error().code());
      assertTrue(waited >= 700 && waited < 3000, "dropped after " + waited + " ms");
      assertEquals(-1, sock.getInputStream().read(), "and the connection is closed");
    }
  }

  @Test
  void aPepThatKeepsAliveStaysConnected() throws Exception {
    try (PdpServer s = Pdps.start(dir, ONE_SECOND_KEEP_ALIVE);
        PepClient pep = pep(s, "awake", AccessRequest.CLIENT_TYPE, new PepListener() {})) {
      await(pep.open());
      // A real wait is the thing under test: the PDP's 1 s timer runs on its event loop's clock,
      // and the PEP's keep-alives must keep it from firing for two and a half periods. When the
      // PEP sends them is tested on a fake clock (PepKeepAliveTest).
      Thread.sleep(2500);
      assertTrue(pep.isOpen());
      assertTrue(await(pep.request("h", CTX, ssh("alice"))).granted());
    }
  }

  @Test
  void hostileInputNeverDisturbsAWellBehavedPep() throws Exception {
    byte[][] hostile = {
      {0x10, 0x01, (byte) 0xc0, (byte) 0xa5, 0, 0, 0, 0x20, 0, 0x06}, // truncated, then close
      {0x10, 0x01, 0, 1, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0}, // 2 GiB length
      {0x20, 0x06, 0, 1, 0, 0, 0, 8}, // version 2
      {0x10, 0x06, 0, 1, 0, 0, 0, 16, 0, 8, 0x11, 1, 0, 0, 0, 0}, // unknown object C-Num 17
      "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
    };
    try (PdpServer s = Pdps.start(dir, "");
        PepClient good = pep(s, "good", AccessRequest.CLIENT_TYPE, new PepListener() {})) {
      await(good.open());
      Random rnd = new Random(7);
      for (int round = 0; round < 20; round++) {
        byte[] h;
        if (round < hostile.length) {
          h = hostile[round];
        } else {
          h = new byte[1 + rnd.nextInt(200)];
          rnd.nextBytes(h);
        }
        try (Socket bad = new Socket()) {
          bad.connect(s.address(), 2000);
          bad.setSoTimeout(3000);
          bad.getOutputStream().write(h);
          bad.shutdownOutput();
          // The PDP answers (a Client-Close) or just closes; it never hangs the socket.
          InputStream in = bad.getInputStream();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
          while (in.read() != -1 && System.nanoTime() < deadline) {
            // drain
          }
        }
        assertTrue(await(good.request("h" + round, CTX, ssh("alice"))).granted(), "round " + round);
      }
      assertTrue(good.isOpen());
      assertTrue(
          s.stats().protocolErrors() >= 3,
          "malformed input was seen: " + s.stats().protocolErrors());
    }
  }

  @Test
  void shutdownSendsShuttingDownToEveryPep() throws Exception {
    PdpServer s = Pdps.start(dir, "");
    try (Socket sock = new Socket()) {
      sock.connect(s.address(), 2000);
      sock.setSoTimeout(5000);
      sock.getOutputStream().write(CopsCodec.encode(ClientOpen.of(AccessRequest.CLIENT_TYPE, "p")));
      readMessage(sock.getInputStream()); // CAT
      s.close();
      CopsMessage cc = CopsCodec.decode(readMessage(sock.getInputStream()));
      assertEquals(ErrorCode.SHUTTING_DOWN.code(), ((ClientClose) cc).error().code());
      assertEquals(AccessRequest.CLIENT_TYPE, cc.clientType());
    }
  }

  @Test
  void requestsBeforeOpenAreRefused() throws Exception {
    try (PdpServer s = Pdps.start(dir, "");
        Socket sock = new Socket()) {
      sock.connect(s.address(), 2000);
      sock.setSoTimeout(5000);
      sock.getOutputStream()
          .write(
              CopsCodec.encode(
                  Request.of(
                      AccessRequest.CLIENT_TYPE, Handle.of("x"), CTX, ssh("alice").toClientSI())));
      CopsMessage cc = CopsCodec.decode(readMessage(sock.getInputStream()));
      assertEquals(ErrorCode.UNSUPPORTED_CLIENT_TYPE.code(), ((ClientClose) cc).error().code());
    }
  }

  @Test
  void theHandleLimitRefusesNewHandlesWithError4() throws Exception {
    try (PdpServer s = Pdps.start(dir, "<limits max-handles=\"2\"/>");
        PepClient pep = pep(s, "gw", AccessRequest.CLIENT_TYPE, new PepListener() {})) {
      await(pep.open());
      await(pep.request("a", CTX, ssh("alice")));
      await(pep.request("b", CTX, ssh("alice")));
      assertTrue(
          await(pep.request("a", CTX, ssh("bob"))).solicited(), "updating a known handle is fine");
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> await(pep.request("c", CTX, ssh("alice"))));
      assertEquals(ErrorCode.UNABLE_TO_PROCESS, ((PepException) e.getCause()).error());
      pep.delete("a", ReasonCode.MANAGEMENT);
      assertTrue(await(pep.request("c", CTX, ssh("alice"))).granted(), "room again after a DRQ");
    }
  }

  @Test
  void aPepOverItsMessageRateIsSlowedNotDropped() throws Exception {
    try (PdpServer s = Pdps.start(dir, "<limits max-messages-per-second=\"100\"/>");
        PepClient pep = pep(s, "chatty", AccessRequest.CLIENT_TYPE, new PepListener() {})) {
      await(pep.open());
      long t0 = System.nanoTime();
      List<CompletableFuture<PepDecision>> all = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        all.add(pep.request("h" + i, CTX, ssh("alice")));
      }
      for (var f : all) {
        assertTrue(await(f).granted());
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertTrue(
          ms >= 1500, "300 requests at 100/s (a burst of 100 allowed) took only " + ms + " ms");
      assertTrue(pep.isOpen());
    }
  }

  @Test
  void aConnectionThatNeverOpensIsClosedAfterTheHandshakeTimeout() throws Exception {
    try (PdpServer s = Pdps.start(dir, "");
        Socket sock = new Socket()) {
      sock.connect(s.address(), 2000);
      sock.setSoTimeout(10_000);
      long t0 = System.nanoTime();
      assertEquals(-1, sock.getInputStream().read());
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertTrue(ms >= 1500 && ms < 8000, "closed after " + ms + " ms (handshake PT2S)");
    }
  }

  @Test
  void aPepComingFromAnotherPdpIsAskedToSynchronize() throws Exception {
    try (PdpServer s = Pdps.start(dir, "");
        Socket sock = new Socket()) {
      sock.connect(s.address(), 2000);
      sock.setSoTimeout(5000);
      CopsMessage opn =
          new ClientOpen(
              AccessRequest.CLIENT_TYPE,
              false,
              new PepId("failover"),
              null,
              new PdpAddress(true, InetAddress.getByName("192.0.2.9"), 3288),
              null);
      sock.getOutputStream().write(CopsCodec.encode(opn));
      assertInstanceOf(ClientAccept.class, CopsCodec.decode(readMessage(sock.getInputStream())));
      assertInstanceOf(
          SyncStateRequest.class, CopsCodec.decode(readMessage(sock.getInputStream())));
    }
    try (PdpServer s = Pdps.start(dir, "");
        Socket sock = new Socket()) {
      sock.connect(s.address(), 2000);
      sock.setSoTimeout(1000);
      CopsMessage opn =
          new ClientOpen(
              AccessRequest.CLIENT_TYPE,
              false,
              new PepId("back"),
              null,
              new PdpAddress(true, s.address().getAddress(), s.address().getPort()),
              null);
      sock.getOutputStream().write(CopsCodec.encode(opn));
      assertInstanceOf(ClientAccept.class, CopsCodec.decode(readMessage(sock.getInputStream())));
      assertThrows(
          SocketTimeoutException.class,
          () -> readMessage(sock.getInputStream()),
          "no SSQ when it was this PDP");
    }
  }
}
