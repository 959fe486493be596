package dev.portcullis.active;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.verify.Outcome;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The demo topology over real UDP sockets: AS, CS, ar-1 -> ar-2 -> destination, a Source. */
class RosaDemoTest {
  @TempDir Path tmp;

  @Test
  @Timeout(90)
  void validPacketsCrossTheChainAndEveryBadOneIsDroppedAtTheFirstRouter() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    RosaDemo.Report r =
        RosaDemo.run(TestDomain.config(tmp), new PrintStream(buf, true, StandardCharsets.UTF_8));
    List<String> hellos = r.delivered().stream().filter(s -> s.startsWith("hello")).toList();
    assertEquals(
        List.of(
            "hello 1;via=ar-1;via=ar-2",
            "hello 2;via=ar-1;via=ar-2",
            "hello 3;via=ar-1;via=ar-2",
            "hello 4;via=ar-1;via=ar-2",
            "hello 5;via=ar-1;via=ar-2"),
        hellos,
        "in order, tagged by both routers");
    assertEquals(2, r.count("ar-1", Outcome.BAD_MAC), "payload changed; U changed");
    assertEquals(2, r.count("ar-1", Outcome.REPLAY));
    assertEquals(1, r.count("ar-1", Outcome.EXPIRED));
    // The limiter (2 packets a second, bursts of 5) lets 5 of the burst of 30 through, or a
    // sixth if the run is slow enough to earn a token.
    long limited = r.count("ar-1", Outcome.SERVICE_DROP);
    assertTrue(limited >= 24 && limited <= 25, "limiter drops at ar-1: " + limited);
    assertEquals(
        5 + 1 + (30 - limited), r.count("ar-1", Outcome.ACCEPTED), "tagged, encrypted, limited");
    for (Outcome o : Outcome.values()) {
      if (o.isDrop() && o != Outcome.SERVICE_DROP) {
        assertEquals(0, r.count("ar-2", o), "nothing bad reaches ar-2: " + o);
      }
    }
    assertTrue(
        r.lines().stream().anyMatch(l -> l.contains("(403): no rule lets bob run tagger")),
        String.join("\n", r.lines()));
  }
}
