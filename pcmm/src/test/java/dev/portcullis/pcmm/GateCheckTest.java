package dev.portcullis.pcmm;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.pcmm.cmts.CmtsSimulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The check of a CMTS's gates after a reconnect, at scale. */
@Timeout(60)
class GateCheckTest {
  /**
   * After a reconnect a CMTS's gates are asked for a window at a time: 600 gates, never more than
   * the window's Gate-Infos outstanding on the new connection (all 600 at once before the window).
   */
  @Test
  void aReconnectAsksForThousandsOfGatesAWindowAtATime() throws Exception {
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps =
            PolicyServer.start(
                sim.addresses(), new SubscriberLimits(10, Set.of()), PolicyServerTest.FAST)) {
      PolicyServerTest.join(ps.ready());
      List<CompletableFuture<Gate>> sets = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        sets.add(ps.set("cmts-1", PolicyServerTest.request(i, "BE", 80)));
      }
      for (CompletableFuture<Gate> f : sets) {
        PolicyServerTest.join(f);
      }
      CmtsSimulator.Cmts c1 = sim.cmts("cmts-1");
      long before = c1.queried();
      c1.dropConnections();
      await().atMost(Duration.ofSeconds(20)).until(() -> c1.queried() - before == 600);
      assertEquals(600, ps.gates("cmts-1").size());
      int most = ps.mostOutstanding("cmts-1");
      assertTrue(most > 1 && most <= CmtsWatch.CHECK_WINDOW, "Gate-Infos outstanding: " + most);
    }
  }
}
