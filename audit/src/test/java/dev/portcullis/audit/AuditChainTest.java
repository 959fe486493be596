package dev.portcullis.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.support.LinkAttacks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit log's hash chain: what it proves, and that each kind of tampering is named. */
class AuditChainTest {
  @TempDir Path dir;

  private Path writeLog(int records) throws Exception {
    Path file = dir.resolve("audit.jsonl");
    try (AuditLog audit = AuditLog.open(file)) {
      for (int i = 0; i < records; i++) {
        audit.record("decision", "pep", "gw-" + i, "handle", i, "decision", "install");
      }
    }
    return file;
  }

  private static List<String> lines(Path file) throws Exception {
    return new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
  }

  private static void write(Path file, List<String> lines) throws Exception {
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  @Test
  void intactLogVerifiesAndRecordsStayPlainJson() throws Exception {
    Path file = writeLog(5);
    AuditChain.Verdict v = AuditChain.verify(file);
    assertTrue(v.intact(), v.problem());
    assertEquals(5, v.records());
    var first = new ObjectMapper().readTree(lines(file).get(0));
    assertEquals("decision", first.get("event").asText());
    assertEquals("gw-0", first.get("pep").asText());
    assertEquals(AuditChain.GENESIS, first.get("prev").asText());
    var second = new ObjectMapper().readTree(lines(file).get(1));
    assertEquals(first.get("hash").asText(), second.get("prev").asText());
  }

  /** Writes {@code n} records, edits the lines as a tamperer would, and verifies. */
  private AuditChain.Verdict tampered(int n, Consumer<List<String>> edit) throws Exception {
    Path file = writeLog(n);
    List<String> l = lines(file);
    edit.accept(l);
    write(file, l);
    return AuditChain.verify(file);
  }

  @Test
  void alteredRecordIsNamed() throws Exception {
    AuditChain.Verdict v = tampered(5, l -> l.set(2, l.get(2).replace("install", "remove")));
    assertFalse(v.intact());
    assertEquals(3, v.brokenLine());
    assertEquals(2, v.records());
    assertTrue(v.problem().contains("altered"), v.problem());
  }

  @Test
  void removedRecordBreaksTheNextOne() throws Exception {
    AuditChain.Verdict v = tampered(5, l -> l.remove(1));
    assertEquals(2, v.brokenLine());
    assertTrue(v.problem().contains("removed"), v.problem());
  }

  @Test
  void reorderedRecordsAreFound() throws Exception {
    AuditChain.Verdict v = tampered(5, l -> Collections.swap(l, 2, 3));
    assertEquals(3, v.brokenLine());
    assertTrue(v.problem().contains("reordered"), v.problem());
  }

  @Test
  void rehashingOneRecordStillBreaksTheLinkAfterIt() throws Exception {
    // A forger who recomputes the altered record's hash must recompute every later one too.
    Path file = writeLog(4);
    List<String> l = lines(file);
    var m = new ObjectMapper().readTree(l.get(1));
    AuditChain c = new AuditChain(m.get("prev").asText());
    String forged =
        c.seal(
            "{\"ts\":"
                + m.get("ts").asLong()
                + ",\"event\":\"decision\",\"pep\":\"gw-1\",\"handle\":1,\"decision\":\"remove\"}");
    l.set(1, forged);
    write(file, l);
    AuditChain.Verdict v = AuditChain.verify(file);
    assertEquals(3, v.brokenLine());
  }

  @Test
  void reopeningContinuesTheChain() throws Exception {
    Path file = writeLog(3);
    String head = AuditChain.verify(file).head();
    try (AuditLog audit = AuditLog.open(file)) {
      audit.record("started");
    }
    AuditChain.Verdict v = AuditChain.verify(file);
    assertTrue(v.intact(), v.problem());
    assertEquals(4, v.records());
    assertEquals(3, AuditChain.lineOf(file, head));
  }

  @Test
  void tornTailIsKeptAndTheRestartIsReported() throws Exception {
    Path file = writeLog(3);
    Files.writeString(file, "{\"ts\":1,\"event\":\"deci", StandardOpenOption.APPEND);
    try (AuditLog audit = AuditLog.open(file)) {
      audit.record("started");
    }
    List<String> l = lines(file);
    assertEquals(5, l.size());
    assertEquals("{\"ts\":1,\"event\":\"deci", l.get(3));
    AuditChain.Verdict v = AuditChain.verify(file);
    assertEquals(4, v.brokenLine());
    assertEquals(3, v.records());
    // The new segment itself is a valid chain from genesis.
    assertEquals(AuditChain.GENESIS, new ObjectMapper().readTree(l.get(4)).get("prev").asText());
  }

  @Test
  void truncationIsOnlyVisibleAgainstAKeptHead() throws Exception {
    Path file = writeLog(4);
    String head = AuditChain.verify(file).head();
    List<String> l = lines(file);
    write(file, l.subList(0, 3));
    assertTrue(AuditChain.verify(file).intact());
    assertEquals(0, AuditChain.lineOf(file, head));
  }

  @Test
  void emptyAndForeignFiles() throws Exception {
    Path empty = dir.resolve("empty.jsonl");
    Files.writeString(empty, "");
    assertTrue(AuditChain.verify(empty).intact());
    assertEquals(AuditChain.GENESIS, AuditChain.headOf(empty).orElseThrow());
    Path foreign = dir.resolve("foreign.jsonl");
    Files.writeString(foreign, "{\"ts\":1,\"event\":\"decision\"}\n");
    assertFalse(AuditChain.headOf(foreign).isPresent());
    AuditChain.Verdict v = AuditChain.verify(foreign);
    assertEquals(1, v.brokenLine());
    assertTrue(v.problem().contains("not a chained record"));
  }

  @Test
  void sealOfEmptyObject() {
    AuditChain c = new AuditChain(AuditChain.GENESIS);
    String line = c.seal("{}");
    assertTrue(line.startsWith("{\"prev\":\"" + AuditChain.GENESIS + "\",\"hash\":\""), line);
  }

  /** docs/security.md, principle 9: no link is followed, no file of someone else's changed. */
  @Test
  void anAuditLogPathThatIsALinkIsRefused() throws Exception {
    LinkAttacks.refused(dir, "audit.jsonl", f -> AuditLog.open(f).close());
  }
}
