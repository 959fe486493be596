package dev.portcullis.pcmm;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.ZooKeeperStateStore;
import dev.portcullis.support.DurableFiles;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two policy servers sharing two CMTSs through a real ZooKeeper: each CMTS held by one member; a
 * member gone, the other takes its CMTS over with its gates, and no gate is set twice.
 */
@Timeout(120)
class FleetGatesTest {
  @TempDir Path dir;
  private TestingServer zk;
  private CmtsSimulator cmtss;
  private final List<PcmmServer> members = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer(true);
    cmtss = new CmtsSimulator(2, CmtsSimulator.Profile.DEFAULT);
    DurableFiles.write(dir.resolve("zk.secret"), "portcullis:pcmm-fleet-test\n".getBytes());
    Files.writeString(dir.resolve("token"), "ab".repeat(32));
  }

  @AfterEach
  void stop() throws Exception {
    members.forEach(PcmmServer::close);
    cmtss.close();
    zk.close();
  }

  private PcmmServer member(String name) throws Exception {
    StringBuilder xml =
        new StringBuilder(
            "<pcmm-server><limits gates-per-subscriber=\"100\"/>"
                + "<state store=\"zookeeper\" connect=\""
                + zk.getConnectString()
                + "\" namespace=\"/portcullis/pcmm\" session-timeout=\"PT4S\""
                + " auth-file=\"zk.secret\"/>"
                + "<fleet member=\""
                + name
                + "\" claim-delay=\"200ms\"/>"
                + "<http listen=\"127.0.0.1:0\"><application-manager name=\"voice\""
                + " app-type=\"1\" am-tag=\"1\" token=\"token\"/></http>");
    cmtss
        .addresses()
        .forEach(
            (n, a) ->
                xml.append("<cmts name=\"")
                    .append(n)
                    .append("\" address=\"127.0.0.1:")
                    .append(a.getPort())
                    .append("\"/>"));
    Path f = dir.resolve(name + ".xml");
    Files.writeString(f, xml + "</pcmm-server>");
    PcmmServer s = PcmmServer.start(f);
    s.ready().get(30, TimeUnit.SECONDS);
    members.add(s);
    return s;
  }

  /** {@code set} fails within {@code seconds}, refused as {@code kind}. */
  private static void assertRefused(
      GateRefusedException.Kind kind, CompletableFuture<?> set, int seconds) {
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> set.get(seconds, TimeUnit.SECONDS));
    GateRefusedException r =
        org.junit.jupiter.api.Assertions.assertInstanceOf(
            GateRefusedException.class, e.getCause(), e.toString());
    assertEquals(kind, r.kind(), e.toString());
  }

  private static GateRequest voice(int i) throws Exception {
    Inet4Address sub = (Inet4Address) InetAddress.getByName("10.0.1." + (1 + i % 200));
    return new GateRequest(
        new PcmmObject.Amid(1, 1),
        new PcmmObject.SubscriberId(sub),
        new PcmmObject.GateSpec(PcmmObject.GateSpec.UPSTREAM, 0, 0, 1, 200, 300, 0, 0),
        new TrafficProfile.ServiceClassName(TrafficProfile.COMMITTED, "VoIP_UP"),
        List.of(
            new PcmmClassifier.Classifier(
                17,
                0,
                0,
                sub,
                (Inet4Address) InetAddress.getByName("192.0.2.10"),
                0,
                5060 + i,
                64)),
        List.of());
  }

  /** Both members in, every CMTS held by exactly one of them. */
  private void shared(PcmmServer a, PcmmServer b) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Set<String> all = new HashSet<>(a.held());
              all.addAll(b.held());
              return all.equals(Set.of("cmts-1", "cmts-2"))
                  && a.held().size() + b.held().size() == 2
                  && a.server().isReady("cmts-1") != b.server().isReady("cmts-1");
            });
  }

  @Test
  void aMembersCmtsIsTakenOverWithItsGatesAndNoneIsSetTwice() throws Exception {
    PcmmServer a = member("ps-a");
    PcmmServer b = member("ps-b");
    shared(a, b);
    PcmmServer holder = a.held().contains("cmts-1") ? a : b;
    PcmmServer other = holder == a ? b : a;

    List<Gate> set = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      set.add(holder.server().set("cmts-1", voice(i)).get(20, TimeUnit.SECONDS));
    }
    CmtsSimulator.Cmts c1 = cmtss.cmts("cmts-1");
    assertEquals(20, c1.created());

    // the other member sends an application manager to the holder
    HttpResponse<String> away =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + other.http().address().getPort()
                                + "/gates/cmts-1/0x1"))
                    .header("Authorization", "Bearer " + "ab".repeat(32))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(307, away.statusCode(), away.body());
    assertEquals(
        "http://127.0.0.1:" + holder.http().address().getPort() + "/gates/cmts-1/0x1",
        away.headers().firstValue("location").orElse(""));
    // ... and cannot set a gate there itself
    ExecutionException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class,
            () -> other.server().set("cmts-1", voice(99)).get(20, TimeUnit.SECONDS));
    assertTrue(refused.getCause() instanceof GateRefusedException, refused.toString());

    holder.close();
    members.remove(holder);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> other.held().contains("cmts-1") && other.server().gates("cmts-1").size() == 20);
    await().atMost(Duration.ofSeconds(10)).until(() -> other.server().isReady("cmts-1"));
    assertEquals(20, c1.created(), "no Gate-Set sent again by the member taking over");
    assertEquals(20, c1.gates());
    Set<Integer> ids = new HashSet<>();
    other.server().gates("cmts-1").forEach(g -> ids.add(g.gateId()));
    Set<Integer> want = new HashSet<>();
    set.forEach(g -> want.add(g.gateId()));
    assertEquals(want, ids);

    // the new holder manages them: deletes every one, and the store forgets them
    for (Gate g : other.server().gates("cmts-1")) {
      other.server().delete(g, "test").get(20, TimeUnit.SECONDS);
    }
    assertEquals(0, c1.gates());
    PcmmServer third = member("ps-c");
    await().atMost(Duration.ofSeconds(10)).until(() -> third.ready().isDone());
    other.close();
    members.remove(other);
    await().atMost(Duration.ofSeconds(30)).until(() -> third.held().size() == 2);
    assertEquals(0, third.server().gates().size(), "deleted gates stay deleted");
  }

  @Test
  void aGateSetWhoseAnswerWasNeverRecordedIsInDoubtForItsSuccessor() throws Exception {
    PcmmServer a = member("ps-a");
    await().atMost(Duration.ofSeconds(30)).until(() -> a.held().size() == 2);
    a.server().set("cmts-1", voice(1)).get(20, TimeUnit.SECONDS);
    // a Gate-Set a crashed member wrote the intent of, and nothing after it
    try (StateStore s =
        ZooKeeperStateStore.connect(
            new ZooKeeperStateStore.Settings(
                zk.getConnectString(),
                "/portcullis/pcmm",
                Duration.ofSeconds(4),
                "portcullis:pcmm-fleet-test"))) {
      s.create(
          "/pcmm/intents/cmts-1/1-1-ps-a",
          GateRecords.intent(voice(2)),
          StateStore.Lifetime.DURABLE);
    }
    PcmmServer b = member("ps-b");
    a.close();
    members.remove(a);
    await().atMost(Duration.ofSeconds(30)).until(() -> b.held().size() == 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> b.server().isReady("cmts-1"));
    assertRefused(GateRefusedException.Kind.IN_DOUBT, b.server().set("cmts-1", voice(2)), 20);
    // other flows are set as usual, and the gate held before is still held
    b.server().set("cmts-1", voice(3)).get(20, TimeUnit.SECONDS);
    assertEquals(2, b.server().gates("cmts-1").size());
    assertEquals(2, cmtss.cmts("cmts-1").created());
  }

  /** A member cut off from the store sends no Gate-Set: its intent cannot be made durable. */
  @Test
  void aMemberCutOffFromTheStoreSetsNoGate() throws Exception {
    PcmmServer a = member("ps-a");
    await().atMost(Duration.ofSeconds(30)).until(() -> a.held().size() == 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.server().isReady("cmts-1"));
    zk.stop();
    assertRefused(GateRefusedException.Kind.UNAVAILABLE, a.server().set("cmts-1", voice(1)), 60);
    assertEquals(0, cmtss.cmts("cmts-1").created(), "nothing sent without its intent recorded");
    zk.restart(); // back within the session: the member goes on holding its CMTSs
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> a.server().set("cmts-1", voice(2)).get(20, TimeUnit.SECONDS) != null);
    assertEquals(1, cmtss.cmts("cmts-1").created());
  }
}
