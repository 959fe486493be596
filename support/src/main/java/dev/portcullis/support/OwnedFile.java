package dev.portcullis.support;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exclusive, owner-only ownership of an audit log or store: the one process that may write it. A
 * claim locks a sibling {@code NAME.lock} file ({@link FileChannel#tryLock}, released by the OS if
 * the process dies), creates the file owner-only ({@code rw-------}) if it is missing and narrows
 * it to owner-only if it is not. A second claimant, in this process or another, fails at once with
 * a message naming the file, before it has written anything.
 *
 * <p>The lock file is never deleted: removing it while another process waits on it would let two
 * owners hold locks on two different files of the same name.
 */
public final class OwnedFile implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OwnedFile.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private final Path file;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private OwnedFile(Path file, FileChannel lockChannel, FileLock lock) {
    this.file = file;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Claims {@code file} ({@code what} names it in messages: "audit log", "credential store"). Its
   * directory must exist: a missing directory is a configuration mistake, reported as such.
   *
   * @throws IOException naming the file and saying why it cannot be owned
   */
  public static OwnedFile claim(Path file, String what) throws IOException {
    return claim(file, what, Duration.ZERO);
  }

  /**
   * As {@link #claim(Path, String)}, waiting up to {@code wait} for another owner to give the file
   * up (for command-line tools run side by side; servers do not wait).
   */
  public static OwnedFile claim(Path file, String what, Duration wait) throws IOException {
    Path f = file.toAbsolutePath().normalize();
    Path dir = f.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new IOException(what + " " + f + ": directory " + dir + " does not exist");
    }
    if (Files.isDirectory(f)) {
      throw new IOException(what + " " + f + " is a directory, not a file");
    }
    Path lockFile = f.resolveSibling(f.getFileName() + ".lock");
    FileChannel ch;
    try {
      ch = open(lockFile, StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new IOException(
          what + " " + f + ": cannot open its lock file " + lockFile + ": " + e, e);
    }
    FileLock lock;
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      try {
        lock = ch.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null; // held by this very process
      } catch (IOException e) {
        ch.close();
        throw new IOException(what + " " + f + ": cannot lock " + lockFile + ": " + e, e);
      }
      if (lock != null || System.nanoTime() - deadline >= 0) {
        break;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (lock == null) {
      ch.close();
      throw new IOException(
          what
              + " "
              + f
              + " is in use by another writer ("
              + lockFile
              + " is locked); one"
              + " process owns it at a time");
    }
    try {
      ownerOnly(f, what);
    } catch (IOException e) {
      lock.release();
      ch.close();
      throw e;
    }
    return new OwnedFile(f, ch, lock);
  }

  /** Creates {@code f} owner-only if missing; narrows an existing one to owner-only. */
  private static void ownerOnly(Path f, String what) throws IOException {
    try {
      open(f, StandardOpenOption.APPEND).close();
    } catch (IOException e) {
      throw new IOException(what + " " + f + " cannot be opened for writing: " + e, e);
    }
    if (posix()) {
      Set<PosixFilePermission> p = Files.getPosixFilePermissions(f);
      if (!p.equals(OWNER_ONLY)) {
        Files.setPosixFilePermissions(f, OWNER_ONLY);
        log.warn(
            "{} {} was {}; now owner-only (rw-------)", what, f, PosixFilePermissions.toString(p));
      }
    }
  }

  /** Opens (creating owner-only if missing) a file for {@code mode}. */
  private static FileChannel open(Path f, StandardOpenOption mode) throws IOException {
    if (posix()) {
      try {
        return FileChannel.open(
            f,
            Set.of(StandardOpenOption.CREATE_NEW, mode),
            PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (FileAlreadyExistsException e) {
        // there already: open it as it is
      }
    }
    try {
      return FileChannel.open(f, StandardOpenOption.CREATE, mode);
    } catch (NoSuchFileException e) {
      throw new IOException("directory " + f.getParent() + " does not exist", e);
    }
  }

  /** Whether the default file system has POSIX permissions (owner-only is then enforced). */
  public static boolean posix() {
    return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
  }

  /** The owned file (absolute). */
  public Path path() {
    return file;
  }

  /** Gives the file up. */
  @Override
  public void close() throws IOException {
    try {
      if (lock.isValid()) {
        lock.release();
      }
    } finally {
      lockChannel.close();
    }
  }
}
