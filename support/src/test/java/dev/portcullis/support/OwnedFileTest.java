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

  @Test
  void linksAndOtherUsersFilesAreRefusedAndLeftAlone() throws Exception {
    assumeTrue(OwnedFile.posix());
    LinkAttacks.refused(dir, "audit.jsonl", f -> OwnedFile.claim(f, "audit log").close());
    // the lock file beside it is held to the same rules
    Path passwd = dir.resolve("passwd-copy");
    Files.createSymbolicLink(dir.resolve("store.json.lock"), passwd);
    IOException lock =
        assertThrows(
            IOException.class, () -> OwnedFile.claim(dir.resolve("store.json"), "state store"));
    assertTrue(lock.getMessage().contains("lock file"), lock.getMessage());
  }

  @Test
  void aFileOrDirectoryOfAnotherUserIsNeverChanged() throws Exception {
    assumeTrue(OwnedFile.posix());
    assumeTrue(
        "0".equals(String.valueOf(Files.getAttribute(dir, "unix:uid"))),
        "only root can give a file away");
    Path theirs = dir.resolve("theirs.jsonl");
    Files.writeString(theirs, "x\n");
    Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rw-r--r--"));
    Files.setAttribute(theirs, "unix:uid", 65534);
    IOException e = assertThrows(IOException.class, () -> OwnedFile.claim(theirs, "audit log"));
    assertTrue(e.getMessage().contains("belongs to user id 65534"), e.getMessage());
    assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(theirs)));
    Path their = Files.createDirectory(dir.resolve("their-dir"));
    Files.setAttribute(their, "unix:uid", 65534);
    Files.setPosixFilePermissions(their, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThrows(IOException.class, () -> OwnedFile.privateDirectory(their, "PKI directory"));
    assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(their)));
  }

  @Test
  void aPrivateDirectoryIsMadeOwnerOnlyAndALinkToOneIsRefused() throws Exception {
    assumeTrue(OwnedFile.posix());
    Path made = dir.resolve("a/b/pki");
    OwnedFile.privateDirectory(made, "PKI directory");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
    Path etc = Files.createDirectory(dir.resolve("etc"));
    Files.setPosixFilePermissions(etc, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path link = Files.createSymbolicLink(dir.resolve("pki-link"), etc);
    IOException e =
        assertThrows(IOException.class, () -> OwnedFile.privateDirectory(link, "PKI directory"));
    assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(etc)));
  }
}
