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

  /** What writes a file's content into the (temporary) path it is given. */
  @FunctionalInterface
  public interface Writer {
    void write(Path into) throws IOException;
  }

  /**
   * Replaces {@code target} alone with what {@code writer} writes: into an owner-only temporary
   * file beside it, renamed over it atomically. Its missing directories are made owner-only;
   * existing ones, and every other file in them, are left as they are (principle 9: a command
   * replaces only the files it writes). A target that is a symbolic link or not a regular file is
   * refused with its name. A writer that fails leaves the previous file as it was.
   */
  public static void replace(Path target, Writer writer) throws IOException {
    Path abs = target.toAbsolutePath().normalize();
    Path d = abs.getParent();
    OwnedFile.createMissing(d);
    OwnedFile.refuseLink(abs, "output file");
    if (Files.exists(abs, java.nio.file.LinkOption.NOFOLLOW_LINKS)
        && !Files.isRegularFile(abs, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("output file " + abs + " is not a regular file: not replaced");
    }
    Path tmp =
        OwnedFile.posix()
            ? Files.createTempFile(
                d,
                "." + abs.getFileName() + ".",
                ".part",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createTempFile(d, "." + abs.getFileName() + ".", ".part");
    try {
      writer.write(tmp);
      Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Creates {@code target} with {@code content}, owner-only from its first byte, forced to disk:
   * true if this call created it, false if it existed (the caller's "once" decided by the file
   * system). The directory is the caller's to force.
   */
  public static boolean createNew(Path target, byte[] content) throws IOException {
    java.util.Set<StandardOpenOption> options =
        java.util.EnumSet.of(
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
    java.nio.file.attribute.FileAttribute<?>[] attrs =
        OwnedFile.posix()
            ? new java.nio.file.attribute.FileAttribute<?>[] {
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
            }
            : new java.nio.file.attribute.FileAttribute<?>[0];
    try (java.nio.channels.SeekableByteChannel ch = Files.newByteChannel(target, options, attrs)) {
      ByteBuffer b = ByteBuffer.wrap(content);
      while (b.hasRemaining()) {
        ch.write(b);
      }
    } catch (java.nio.file.FileAlreadyExistsException e) {
      return false;
    }
    return true;
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
