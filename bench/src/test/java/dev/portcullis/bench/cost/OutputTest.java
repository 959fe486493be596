package dev.portcullis.bench.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The run's arguments: mistakes caught before anything is measured or written. (How its files are
 * written: DurableFilesTest, and CostOfSecuritySmokeTest with a stranger's file in {@code --out}.)
 */
class OutputTest {
  @TempDir Path tmp;

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
