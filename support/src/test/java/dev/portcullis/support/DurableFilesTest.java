package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files replaced one by one, owner-only, nothing else in their directory touched: a report run that
 * replaced its whole {@code --out} lost a file the user kept there (docs/security.md, principle 9).
 */
class DurableFilesTest {
  @TempDir Path tmp;

  @Test
  void onlyTheRunsOwnFilesAreReplacedAndAFailedWriteLeavesTheOldOne() throws Exception {
    Path out = tmp.resolve("report");
    DurableFiles.replace(out.resolve("results.json"), f -> Files.writeString(f, "1"));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(out)),
        "a directory the run made is owner-only");
    DurableFiles.replace(out.resolve("results.json"), f -> Files.writeString(f, "2"));
    assertEquals("2", Files.readString(out.resolve("results.json")));
    assertThrows(
        IOException.class,
        () ->
            DurableFiles.replace(
                out.resolve("results.json"),
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
    DurableFiles.replace(mine.resolve("results.json"), f -> Files.writeString(f, "{}"));
    DurableFiles.replace(mine.resolve("report.html"), f -> Files.writeString(f, "<html>"));
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
            () ->
                DurableFiles.replace(
                    mine.resolve("report.html.link"), f -> Files.writeString(f, "x")));
    assertTrue(link.getMessage().contains("report.html.link"), link.getMessage());
    assertEquals(
        "the user's own", Files.readString(mine.resolve("mine.txt")), "never through a link");
  }

  @Test
  void aNewFileIsOwnerOnlyAndMadeOnce() throws Exception {
    Path mark = tmp.resolve("mark");
    assertTrue(DurableFiles.createNew(mark, new byte[] {1}));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(mark)));
    assertFalse(DurableFiles.createNew(mark, new byte[] {2}), "once");
    assertEquals(1, Files.readAllBytes(mark)[0]);
    DurableFiles.write(tmp.resolve("store"), new byte[] {3});
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("store"))));
  }
}
