package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnedFileTest {
  @TempDir Path dir;

  @Test
  void oneOwnerAtATimeAndTheSecondIsToldWhy() throws IOException {
    Path f = dir.resolve("audit.jsonl");
    try (OwnedFile first = OwnedFile.claim(f, "audit log")) {
      assertEquals(f, first.path());
      IOException e = assertThrows(IOException.class, () -> OwnedFile.claim(f, "audit log"));
      assertTrue(e.getMessage().contains("is in use by another writer"), e.getMessage());
      assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    }
    OwnedFile.claim(f, "audit log").close(); // free again once given up
  }

  @Test
  void createdOwnerOnlyAndNarrowedIfWider() throws IOException {
    assumeTrue(OwnedFile.posix());
    Path f = dir.resolve("new.jsonl");
    OwnedFile.claim(f, "audit log").close();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
    Path old = dir.resolve("old.jsonl");
    Files.writeString(old, "x\n");
    Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rw-r--r--"));
    OwnedFile.claim(old, "audit log").close();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(old)));
    assertEquals("x\n", Files.readString(old), "contents kept");
  }

  @Test
  void aMissingDirectoryOrADirectoryIsAClearError() {
    IOException missing =
        assertThrows(
            IOException.class,
            () -> OwnedFile.claim(dir.resolve("nonexistent/dir/a.jsonl"), "audit log"));
    assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    IOException isDir = assertThrows(IOException.class, () -> OwnedFile.claim(dir, "audit log"));
    assertTrue(isDir.getMessage().contains("is a directory"), isDir.getMessage());
  }
}
