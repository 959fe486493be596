package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AcceptFailuresTest {
  @Test
  void aListenerOutOfDescriptorsSaysSoOnceAndPausesAccepting() {
    EmbeddedChannel server =
        new EmbeddedChannel(new AcceptFailures("PDP", new ManualClock(1_700_000_000L)));
    try (LogLines log = LogLines.of(AcceptFailures.class)) {
      for (int i = 0; i < 100; i++) {
        server
            .pipeline()
            .fireExceptionCaught(new IOException("accept(..) failed: Too many open files"));
      }
      server.checkException(); // nothing reached the end of the pipeline
      List<String> w = log.warnings();
      assertEquals(1, w.size(), w.toString());
      assertTrue(w.get(0).startsWith("PDP on "), w.get(0));
      assertTrue(w.get(0).contains(": cannot accept a connection: accept(..) failed"), w.get(0));
      assertTrue(w.get(0).contains("LimitNOFILE="), w.get(0));
      assertFalse(server.config().isAutoRead(), "paused");
      server.advanceTimeBy(1, TimeUnit.SECONDS);
      server.runScheduledPendingTasks();
      assertTrue(server.config().isAutoRead(), "accepting again after a second");
    } finally {
      server.finishAndReleaseAll();
    }
  }
}
