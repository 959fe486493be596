package dev.portcullis.support;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/** Files written all or nothing, on disk: the way stores replace what they hold. */
public final class DurableFiles {
  private DurableFiles() {}

  /**
   * Writes {@code content} to an owner-only temporary file beside {@code target}, forces it,
   * renames it over {@code target} atomically and forces the directory: after a crash the file is
   * either the old one or the new one, never a mix.
   */
  public static void write(Path target, byte[] content) throws IOException {
    Path d = target.toAbsolutePath().getParent();
    Path tmp =
        OwnedFile.posix()
            ? Files.createTempFile(
                d,
                ".tmp-",
                ".part",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createTempFile(d, ".tmp-", ".part");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer b = ByteBuffer.wrap(content);
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
      forceDirectory(d);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Forces a directory's entries (a rename) to disk, where the file system allows it. */
  public static void forceDirectory(Path directory) throws IOException {
    try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems cannot open or force a directory; the rename itself is still atomic.
      if (OwnedFile.posix()) {
        throw e;
      }
    }
  }
}
