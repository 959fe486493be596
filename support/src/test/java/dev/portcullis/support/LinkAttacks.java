package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The file attacks every component that writes a file must refuse (docs/security.md, principle 9):
 * its path a symbolic link to a world-readable file (say a copy of {@code /etc/passwd}), a dangling
 * link (its target would be created outside the configured path), a hard link to a file of the same
 * user. Each is refused with the path named, and nothing outside the path is created or changed.
 */
public final class LinkAttacks {
  private LinkAttacks() {}

  /** Opens what a component writes at a path (and closes it again), or throws. */
  @FunctionalInterface
  public interface Opener {
    void open(Path path) throws Exception;
  }

  /** Runs the three attacks on {@code open}, in {@code dir}, with {@code name} as the path. */
  public static void refused(Path dir, String name, Opener open) throws Exception {
    Path passwd = dir.resolve("passwd-copy");
    Files.writeString(passwd, "root:x:0:0:root:/root:/bin/bash\n");
    Files.setPosixFilePermissions(passwd, PosixFilePermissions.fromString("rw-r--r--"));

    Path link = dir.resolve(name);
    Files.createSymbolicLink(link, passwd);
    Exception e = assertThrows(Exception.class, () -> open.open(link), "a link is refused");
    assertTrue(message(e).contains("symbolic link"), message(e));
    assertTrue(message(e).contains(link.getFileName().toString()), "names the path: " + message(e));
    untouched(passwd);
    Files.delete(link);

    Path nowhere = dir.resolve("elsewhere-" + name);
    Files.createSymbolicLink(link, nowhere);
    e = assertThrows(Exception.class, () -> open.open(link), "a dangling link is refused");
    assertTrue(message(e).contains("symbolic link"), message(e));
    assertFalse(Files.exists(nowhere, LinkOption.NOFOLLOW_LINKS), "its target is not created");
    Files.delete(link);

    Files.createLink(link, passwd);
    e = assertThrows(Exception.class, () -> open.open(link), "a hard link is refused");
    assertTrue(message(e).contains("hard links"), message(e));
    untouched(passwd);
    Files.delete(link);
  }

  private static void untouched(Path passwd) throws Exception {
    assertEquals(
        "rw-r--r--",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(passwd)),
        "the link's target keeps its mode");
    assertEquals("root:x:0:0:root:/root:/bin/bash\n", Files.readString(passwd), "and its text");
  }

  /** The message of {@code e} and its causes, for errors wrapped on their way up. */
  public static String message(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      b.append(t.getMessage()).append(" / ");
    }
    return b.toString();
  }
}
