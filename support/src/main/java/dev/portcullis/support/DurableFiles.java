package dev.portcullis.support;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Files written all or nothing, owner-only from their first byte: the way stores replace what they
 * hold and commands write their output. Every file is made beside its target and renamed over it,
 * so nothing else in the directory is touched (principle 9: a command replaces only the files it
 * writes), and a target that is a symbolic link is refused.
 */
public final class DurableFiles {
  private DurableFiles() {}

  /** What writes a file's content into the (temporary) path it is given. */
  @FunctionalInterface
  public interface Writer {
    void write(Path into) throws IOException;
  }

  /**
   * Writes {@code content} to an owner-only temporary file beside {@code target}, forces it,
   * renames it over {@code target} atomically and forces the directory: after a crash the file is
   * either the old one or the new one, never a mix.
   */
  public static void write(Path target, byte[] content) throws IOException {
    replace(
        target,
        tmp -> {
          try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            writeAll(ch, content);
            ch.force(true);
          }
        });
    forceDirectory(target.toAbsolutePath().normalize().getParent());
  }

  /**
   * Replaces {@code target} alone with what {@code writer} writes: into an owner-only temporary
   * file beside it, renamed over it atomically. Its missing directories are made owner-only;
   * existing ones, and every other file in them, are left as they are. A target that is a symbolic
   * link or not a regular file is refused with its name. A writer that fails leaves the previous
   * file as it was.
   */
  public static void replace(Path target, Writer writer) throws IOException {
    Path abs = target.toAbsolutePath().normalize();
    Path d = abs.getParent();
    OwnedFile.createMissing(d);
    OwnedFile.refuseLink(abs, "file");
    if (Files.exists(abs, LinkOption.NOFOLLOW_LINKS)
        && !Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("file " + abs + " is not a regular file: not replaced");
    }
    Path tmp = Files.createTempFile(d, "." + abs.getFileName() + ".", ".part", ownerOnly());
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
    Set<StandardOpenOption> options =
        EnumSet.of(
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
    try (SeekableByteChannel ch = Files.newByteChannel(target, options, ownerOnly())) {
      writeAll(ch, content);
    } catch (FileAlreadyExistsException e) {
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

  /** {@code rw-------} where the file system has POSIX modes; nothing elsewhere. */
  private static FileAttribute<?>[] ownerOnly() {
    return OwnedFile.posix()
        ? new FileAttribute<?>[] {
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))
        }
        : new FileAttribute<?>[0];
  }

  private static void writeAll(SeekableByteChannel ch, byte[] content) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(content);
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }
}
