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
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The run's output and its arguments: each file replaced on its own and nothing else in {@code
 * --out} touched (a user's file there was lost when the whole directory was replaced), mistakes
 * caught first.
 */
class OutputTest {
  @TempDir Path tmp;

  @Test
  void onlyTheRunsOwnFilesAreReplacedAndAFailedWriteLeavesTheOldOne() throws Exception {
    Path out = tmp.resolve("report");
    Output.write(out, "results.json", f -> Files.writeString(f, "1"));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(out)),
        "a directory the run made is owner-only");
    Output.write(out, "results.json", f -> Files.writeString(f, "2"));
    assertEquals("2", Files.readString(out.resolve("results.json")));
    assertThrows(
        IOException.class,
        () ->
            Output.write(
                out,
                "results.json",
                f -> {
                  Files.writeString(f, "3");
                  throw new IOException("disk full");
                }));
    assertEquals("2", Files.readString(out.resolve("results.json")), "the old file stays");
    try (var left = Files.list(out)) {
      assertEquals(1, left.count(), "no temporary file left behind");
    }
  }

  @Test
  void aStrangersFileAndTheDirectoryItselfAreLeftAsTheyWere() throws Exception {
    // --out . or --out ~/results: a directory of the user's, with the user's files in it
    Path mine = Files.createDirectories(tmp.resolve("results"));
    Files.setPosixFilePermissions(mine, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(mine.resolve("mine.txt"), "the user's own");
    Output.write(mine, "results.json", f -> Files.writeString(f, "{}"));
    Output.write(mine, "report.html", f -> Files.writeString(f, "<html>"));
    assertEquals("the user's own", Files.readString(mine.resolve("mine.txt")));
    assertEquals(
        "rwxr-xr-x",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(mine)),
        "not ours to narrow");
    try (var left = Files.list(mine)) {
      assertEquals(3, left.count());
    }
    Files.createSymbolicLink(mine.resolve("report.html.link"), mine.resolve("mine.txt"));
    IOException link =
        assertThrows(
            IOException.class,
            () -> Output.write(mine, "report.html.link", f -> Files.writeString(f, "x")));
    assertTrue(link.getMessage().contains("report.html.link"), link.getMessage());
    assertEquals(
        "the user's own", Files.readString(mine.resolve("mine.txt")), "never through a link");
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
