package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The run's output and its arguments: both files replaced together, mistakes caught first. */
class OutputTest {
  @TempDir Path tmp;

  @Test
  void bothFilesAreReplacedTogetherAndAFailedWriteLeavesTheOldOnes() throws Exception {
    Path out = tmp.resolve("report");
    Output.replace(
        out,
        d -> {
          Files.writeString(d.resolve("results.json"), "1");
          Files.writeString(d.resolve("report.html"), "1");
        });
    Output.replace(
        out,
        d -> {
          Files.writeString(d.resolve("results.json"), "2");
          Files.writeString(d.resolve("report.html"), "2");
        });
    assertEquals("2", Files.readString(out.resolve("results.json")));
    assertEquals("2", Files.readString(out.resolve("report.html")));
    assertThrows(
        IOException.class,
        () ->
            Output.replace(
                out,
                d -> {
                  Files.writeString(d.resolve("results.json"), "3");
                  throw new IOException("disk full");
                }));
    assertEquals("2", Files.readString(out.resolve("results.json")), "the old pair stays");
    assertEquals("2", Files.readString(out.resolve("report.html")));
    try (var left = Files.list(tmp)) {
      assertEquals(1, left.count(), "no temporary directories left behind");
    }
  }

  @Test
  void badArgumentsAreRefusedBeforeAnythingIsMeasured() {
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new CostOfSecurity());
    cl.setErr(new PrintWriter(err));
    long t0 = System.nanoTime();
    int rc =
        cl.execute(
            "--jmh",
            tmp.resolve("missing.json").toString(),
            "--engines",
            "openssl,nosuch",
            "--out",
            tmp.resolve("out").toString());
    assertEquals(2, rc, err.toString());
    assertTrue(err.toString().contains("--jmh " + tmp.resolve("missing.json") + ": no such file"));
    assertTrue(err.toString().contains("no engine nosuch"), err.toString());
    assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "refused at once, not after a run");
    assertFalse(Files.exists(tmp.resolve("out")));
  }
}
