package dev.portcullis.tunnel.vici;

import static dev.portcullis.tunnel.vici.FakeCharon.answer;
import static dev.portcullis.tunnel.vici.FakeCharon.event;
import static dev.portcullis.tunnel.vici.FakeCharon.of;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.ManualTimebase;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client against a scripted daemon on a unix socket: answers in order, refusals with charon's
 * errmsg, streamed commands, late answers, bytes that are not VICI, a daemon that goes away.
 */
@Timeout(30)
class ViciClientTest {
  @TempDir Path dir;

  static ViciMessage m(String... kv) {
    ViciMessage.Builder b = ViciMessage.builder();
    for (int i = 0; i < kv.length; i += 2) {
      b.put(kv[i], kv[i + 1]);
    }
    return b.build();
  }

  /** What charon answers to the commands these tests send. */
  static List<byte[]> charon(ViciPacket p) {
    return switch (p.type()) {
      case EVENT_REGISTER, EVENT_UNREGISTER ->
          List.of(
              of(
                  p.name().equals("list-sa")
                      ? ViciPacket.Type.EVENT_CONFIRM
                      : ViciPacket.Type.EVENT_UNKNOWN));
      case CMD_REQUEST ->
          switch (p.name()) {
            case "version" -> List.of(answer(m("daemon", "charon", "version", "5.9.8")));
            case "load-conn" ->
                List.of(
                    answer(
                        m("success", "no", "errmsg", "invalid connection 'tun': no local_addrs")));
            case "list-sas" ->
                List.of(
                    event(
                        "list-sa",
                        ViciMessage.builder().section("tun-1", m("state", "ESTABLISHED")).build()),
                    event(
                        "list-sa",
                        ViciMessage.builder().section("tun-2", m("state", "CONNECTING")).build()),
                    answer(ViciMessage.EMPTY));
            case "unload-conn" -> List.of(answer(m("success", "yes")));
            default -> List.of(of(ViciPacket.Type.CMD_UNKNOWN));
          };
      default -> List.of();
    };
  }

  @Test
  void aFailedInitiateIsExplainedByWhatCharonLoggedNotItsGenericLine() {
    assertEquals(
        "received AUTHENTICATION_FAILED notify error",
        ControlLog.explanation(
            List.of(
                "initiating IKE_SA t-1[3] to 192.0.2.2",
                "received AUTHENTICATION_FAILED notify error",
                "establishing CHILD_SA 'net' failed")));
    assertEquals("", ControlLog.explanation(List.of("sending packet: from 192.0.2.1[4500]")));
  }

  @Test
  void commandsAreAnsweredAndRefusalsCarryCharonsReason() throws Exception {
    try (FakeCharon d = new FakeCharon(dir, ViciClientTest::charon);
        ViciClient c = ViciClient.connect(d.socket, Duration.ofSeconds(5))) {
      assertEquals("5.9.8", c.await(c.version()).text("version"));
      ViciCommandException refused =
          assertThrows(
              ViciCommandException.class, () -> c.await(c.loadConn("tun", m("version", "2"))));
      assertEquals("load-conn", refused.command());
      assertEquals("invalid connection 'tun': no local_addrs", refused.reason());
      assertEquals("yes", c.await(c.unloadConn("tun")).text("success"));
      ViciCommandException unknown =
          assertThrows(
              ViciCommandException.class,
              () -> c.await(c.command("reload-everything", ViciMessage.EMPTY)));
      assertEquals("unknown command", unknown.reason());
      assertEquals("load-conn", d.received.get(1).name());
      assertEquals("2", d.received.get(1).message().section("tun").text("version"));
    }
  }

  @Test
  void aStreamedCommandGathersItsEventsInOrder() throws Exception {
    try (FakeCharon d = new FakeCharon(dir, ViciClientTest::charon);
        ViciClient c = ViciClient.connect(d.socket, Duration.ofSeconds(5))) {
      List<ViciMessage> sas = c.listSas(null);
      assertEquals(2, sas.size());
      assertEquals("ESTABLISHED", sas.get(0).section("tun-1").text("state"));
      assertEquals("CONNECTING", sas.get(1).section("tun-2").text("state"));
      // the unregistration is sent with the command, and may reach the fake charon just after
      // listSas has its answer (a full build under load showed two of the three)
      await().until(() -> d.received.size() >= 3);
      List<String> order = new ArrayList<>();
      d.received.forEach(p -> order.add(p.type() + " " + p.name()));
      assertEquals(
          List.of("EVENT_REGISTER list-sa", "CMD_REQUEST list-sas", "EVENT_UNREGISTER list-sa"),
          order);
      ViciCommandException e =
          assertThrows(
              ViciCommandException.class, () -> c.await(c.subscribe("ike-wobble", x -> {})));
      assertTrue(e.reason().contains("does not know the event"), e.reason());
    }
  }

  @Test
  void aLateAnswerIsDroppedAndTheNextCommandGetsItsOwn() throws Exception {
    CountDownLatch timedOut = new CountDownLatch(1);
    ManualTimebase time = new ManualTimebase();
    try (FakeCharon d =
            new FakeCharon(
                dir,
                p -> {
                  if ("initiate".equals(p.name())) {
                    try {
                      timedOut.await(10, TimeUnit.SECONDS); // answers once the client gave up
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    return List.of(answer(m("success", "yes")));
                  }
                  return charon(p);
                });
        ViciClient c = ViciClient.connect(d.socket, Duration.ofMillis(500), null, time)) {
      CompletableFuture<ViciMessage> slow = c.initiate("net", "tun", Duration.ofSeconds(1));
      await().until(() -> time.pending() == 1); // its timer set, on the client's loop
      time.advance(Duration.ofMillis(499));
      assertTrue(!slow.isDone(), "not before the client's timeout");
      time.advance(Duration.ofMillis(1));
      assertThrows(TimeoutException.class, () -> c.await(slow));
      timedOut.countDown();
      // charon answers in order: the initiate's late answer comes first and is dropped
      CompletableFuture<ViciMessage> next = c.version();
      assertEquals("charon", next.get(5, TimeUnit.SECONDS).text("daemon"), "its own answer");
    }
  }

  @Test
  void bytesThatAreNotViciEndTheConnectionAndFailWhatWaits() throws Exception {
    try (FakeCharon d = new FakeCharon(dir, p -> List.of(new byte[] {0, 0, 0, 2, 1, 9}));
        ViciClient c = ViciClient.connect(d.socket, Duration.ofSeconds(5))) {
      List<Throwable> closed = new java.util.concurrent.CopyOnWriteArrayList<>();
      c.onClose(closed::add);
      ViciProtocolException e =
          assertThrows(ViciProtocolException.class, () -> c.await(c.version()));
      assertTrue(e.getMessage().contains("at byte 1: unknown element type 9"), e.getMessage());
      assertTrue(!c.isOpen());
      assertEquals(1, closed.size());
      assertThrows(IOException.class, () -> c.await(c.version()), "closed: refused at once");
    }
  }

  @Test
  void aDaemonThatGoesAwayFailsTheCommandAndIsHeard() throws Exception {
    try (FakeCharon d = new FakeCharon(dir, p -> java.util.Collections.singletonList(null));
        ViciClient c = ViciClient.connect(d.socket, Duration.ofSeconds(5))) {
      List<Throwable> closed = new java.util.concurrent.CopyOnWriteArrayList<>();
      c.onClose(closed::add);
      IOException e = assertThrows(IOException.class, () -> c.await(c.version()));
      assertTrue(e.getMessage().contains("charon closed the VICI connection"), e.getMessage());
      assertEquals(1, closed.size());
    }
    IOException none =
        assertThrows(
            IOException.class,
            () -> ViciClient.connect(dir.resolve("none.vici"), Duration.ofSeconds(1)));
    assertTrue(
        none.getMessage().contains("none.vici cannot be reached (is charon running?)"),
        none.getMessage());
  }
}
