package dev.portcullis.pdp;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.pdp.cli.PdpMain;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed start leaves no trace, and one process owns each audit log: what a second PDP, a busy
 * port and parallel operators did to a running PDP's files.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PdpStartTest {
  @TempDir Path dir;

  private PdpConfig config(String name, int port, String audit) throws Exception {
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Path xml = dir.resolve(name);
    Files.writeString(
        xml,
        "<pdp><listen address=\"127.0.0.1\" port=\""
            + port
            + "\"/><client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
            + "<audit file=\""
            + audit
            + "\"/></pdp>");
    return PdpConfig.load(xml);
  }

  @Test
  void aSecondPdpOnTheSameAuditLogFailsAndWritesNothing() throws Exception {
    Path audit = dir.resolve("audit.jsonl");
    try (PdpServer running = PdpServer.start(config("a.xml", 0, "audit.jsonl"), 1)) {
      await().until(() -> Files.readString(audit).contains("started")); // written off the loop
      byte[] before = Files.readAllBytes(audit);
      IOException e =
          assertThrows(
              IOException.class, () -> PdpServer.start(config("b.xml", 0, "audit.jsonl"), 1));
      assertTrue(e.getMessage().contains("in use by another writer"), e.getMessage());
      assertArrayEquals(before, Files.readAllBytes(audit), "the running PDP's log untouched");
      assertTrue(running.address().getPort() > 0);
    }
    AuditChain.Verdict v = AuditChain.verify(audit);
    assertTrue(v.intact(), v.problem());
    assertEquals(2, v.records(), "started, stopped");
  }

  @Test
  void aPdpThatCannotBindRecordsNoStop() throws Exception {
    try (PdpServer running = PdpServer.start(config("a.xml", 0, "a.jsonl"), 1)) {
      int port = running.address().getPort();
      IOException e =
          assertThrows(
              IOException.class, () -> PdpServer.start(config("b.xml", port, "b.jsonl"), 1));
      assertTrue(e.getMessage().contains("cannot listen"), e.getMessage());
    }
    Path b = dir.resolve("b.jsonl");
    assertFalse(
        Files.exists(b) && Files.readString(b).contains("\"stopped\""),
        "a PDP that never started records no stop");
  }

  @Test
  void anAuditLogThatCannotBeWrittenStopsTheStart() throws Exception {
    // its directory cannot be made: a mistake in the config, named at its line before any start
    Files.writeString(dir.resolve("afile"), "not a directory");
    ConfigException c =
        assertThrows(
            ConfigException.class, () -> PdpServer.start(config("a.xml", 0, "afile/a.jsonl"), 1));
    assertTrue(c.getMessage().contains("cannot be created"), c.getMessage());
    assertTrue(c.line() > 0, c.getMessage());
    // a file the PDP may not take (a link): the start stops with the audit log named
    Files.createSymbolicLink(dir.resolve("link.jsonl"), dir.resolve("afile"));
    IOException e =
        assertThrows(IOException.class, () -> PdpServer.start(config("a.xml", 0, "link.jsonl"), 1));
    assertTrue(e.getMessage().contains("audit log"), e.getMessage());
  }

  /** Four operators issuing credentials at once: one chain, not four forks. */
  @Test
  void parallelIssueCredentialKeepsOneChain() throws Exception {
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Path xml = dir.resolve("pdp.xml");
    Files.writeString(
        xml,
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
            + "<security><tls dev-pki=\"pki\" client-auth=\"optional\"/>"
            + "<protection level=\"confidentiality\"/><enrolment store=\"otc\"/></security></pdp>");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> runs = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String pep = "gw-" + i;
        runs.add(
            pool.submit(
                () ->
                    Cli.of("pdp-server", new PdpMain())
                        .setOut(new PrintWriter(new StringWriter()))
                        .setErr(new PrintWriter(new StringWriter()))
                        .execute("issue-credential", "-c", xml.toString(), "--pep", pep)));
      }
      for (Future<Integer> f : runs) {
        assertEquals(0, f.get(30, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    AuditChain.Verdict v = AuditChain.verify(dir.resolve("otc").resolve("credentials.jsonl"));
    assertTrue(v.intact(), v.problem());
    assertEquals(8, v.records());
  }
}
