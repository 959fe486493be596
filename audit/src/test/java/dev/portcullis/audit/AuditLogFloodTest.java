package dev.portcullis.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records come faster than the writer can seal and write them (a PDP at wire speed makes about four
 * times as many as one writer thread keeps up with): none is lost, the chain stays whole and in
 * each producer's order. The callers wait for room instead (a PDP does not decide without
 * recording).
 */
class AuditLogFloodTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aFloodFromSeveralThreadsLosesNoRecord() throws Exception {
    Path file = dir.resolve("audit.jsonl");
    int threads = 4;
    int each = 40_000; // 160,000 records: more than twice the queue
    AuditLog audit = AuditLog.open(file);
    List<Thread> producers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int producer = t;
      Thread p =
          new Thread(
              () -> {
                for (int i = 0; i < each; i++) {
                  audit.record("decision", "producer", producer, "n", i);
                }
              });
      producers.add(p);
      p.start();
    }
    for (Thread p : producers) {
      p.join();
    }
    audit.close();
    assertEquals(0, audit.dropped(), "records dropped");
    AuditChain.Verdict v = AuditChain.verify(file);
    assertNull(v.problem(), v.problem());
    assertEquals(threads * (long) each, v.records());
    int[] next = new int[threads];
    ObjectMapper json = new ObjectMapper();
    for (String line : Files.readAllLines(file)) {
      JsonNode r = json.readTree(line);
      int producer = r.get("producer").asInt();
      assertEquals(next[producer]++, r.get("n").asInt(), "producer " + producer + "'s order");
    }
  }
}
