package dev.portcullis.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** PdpLoad's throughput part: when a climb has reached its plateau, and the C programs. */
class ThroughputTest {
  @Test
  void thePlateauIsThreeWindowsInARowWithinFivePercentOfTheirMean() {
    assertEquals(-1, Throughput.plateau(List.of(100.0, 100.0)));
    assertEquals(-1, Throughput.plateau(List.of(68.0, 156.0, 206.0, 247.0)));
    assertEquals(2, Throughput.plateau(List.of(68.0, 156.0, 240.0, 247.0, 250.0)));
    // one window 7 % under the mean of the three keeps the climb going
    assertEquals(-1, Throughput.plateau(List.of(250.0, 250.0, 225.0)));
    assertEquals(0, Throughput.plateau(List.of(250.0, 245.0, 255.0)));
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void theCResponderAnswersBothGenerators(@TempDir Path dir) throws Exception {
    String why = CPrograms.why();
    assumeTrue(why == null, why);
    CPrograms c = CPrograms.build(dir);
    byte[] dec = new byte[112];
    System.arraycopy(LoopbackLoad.header(112), 0, dec, 0, 8);
    byte[] requests = LoopbackLoad.requests(4, PdpLoad.request(0).length);
    EventLoopGroup g = Transport.EPOLL.group(1);
    try (CPrograms.Responder r = c.responder(dec, 1)) {
      assertTrue(c.rate(r.address(), null, requests, 4, 2, 0, 300).perSecond() > 0);
      assertTrue(r.cpuNanos() >= 0);
      try (LoopbackLoad.Flow f =
          LoopbackLoad.Flow.open(g, r.address(), null, PdpLoad.request(0).length, 2, 4)) {
        assertTrue(f.rate(300) > 0);
      }
    } finally {
      g.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }
}
