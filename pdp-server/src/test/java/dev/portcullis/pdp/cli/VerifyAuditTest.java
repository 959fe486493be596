package dev.portcullis.pdp.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.audit.AuditLog;
import dev.portcullis.support.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pdp-server verify-audit}: exit status and the line an operator reads. */
class VerifyAuditTest {
  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return Cli.of("pdp-server", new PdpMain())
        .setOut(new PrintWriter(out, true))
        .setErr(new PrintWriter(err, true))
        .execute(args);
  }

  private Path log(int n) throws Exception {
    Path file = dir.resolve("audit.jsonl");
    try (AuditLog audit = AuditLog.open(file)) {
      for (int i = 0; i < n; i++) {
        audit.record("report", "pep", "gw", "handle", i, "type", "success");
      }
    }
    return file;
  }

  @Test
  void intact() throws Exception {
    Path file = log(3);
    assertEquals(0, run("verify-audit", file.toString()));
    assertTrue(out.toString().contains("intact, 3 records"), out.toString());
  }

  @Test
  void brokenNamesTheLine() throws Exception {
    Path file = log(3);
    List<String> l = Files.readAllLines(file);
    l.set(1, l.get(1).replace("success", "failure"));
    Files.write(file, l);
    assertEquals(1, run("verify-audit", file.toString()));
    assertTrue(out.toString().contains("BROKEN at line 2"), out.toString());
  }

  @Test
  void keptHeadRevealsTruncation() throws Exception {
    Path file = log(3);
    String head = AuditChain.verify(file).head();
    assertEquals(0, run("verify-audit", "--head", head, file.toString()));
    List<String> l = Files.readAllLines(file);
    Files.write(file, l.subList(0, 2));
    assertEquals(1, run("verify-audit", "--head", head, file.toString()));
    assertTrue(out.toString().contains("cut off the end"), out.toString());
  }

  @Test
  void missingFileIsOneLine() {
    assertEquals(2, run("verify-audit", dir.resolve("nope.jsonl").toString()));
    assertTrue(err.toString().startsWith("pdp-server: no such file"), err.toString());
  }

  /** What a crash leaves mid-character: a break at a line and byte offset, exit 1, not 2. */
  @Test
  void invalidUtf8IsABreakWithItsOffset() throws Exception {
    Path file = log(2);
    long size = Files.size(file);
    byte[] torn = {'{', '"', 'x', '"', ':', '"', (byte) 0xE2, (byte) 0x82};
    Files.write(file, torn, StandardOpenOption.APPEND);
    Files.write(file, new byte[] {'\n'}, StandardOpenOption.APPEND);
    assertEquals(1, run("verify-audit", file.toString()));
    assertTrue(
        out.toString().contains("BROKEN at line 3: invalid UTF-8 at byte offset " + (size + 6)),
        out.toString());
  }

  @Test
  void crlfLineEndingsAreNotTheBytesWritten() throws Exception {
    Path file = log(2);
    Files.writeString(file, Files.readString(file).replace("\n", "\r\n"));
    assertEquals(1, run("verify-audit", file.toString()));
    assertTrue(out.toString().contains("BROKEN at line 1: the line ends in CR LF"), out.toString());
  }

  @Test
  void aTornLastLineIsABreak() throws Exception {
    Path file = log(2);
    Files.writeString(file, "{\"event\":\"repo", StandardOpenOption.APPEND);
    assertEquals(1, run("verify-audit", file.toString()));
    assertTrue(
        out.toString().contains("BROKEN at line 3: the file ends in a line without"),
        out.toString());
  }

  @Test
  void aMalformedHeadIsBadSyntax() throws Exception {
    Path file = log(1);
    assertEquals(2, run("verify-audit", "--head", "xyz", file.toString()));
    assertTrue(err.toString().contains("--head xyz is not a chain head"), err.toString());
  }
}
