package dev.portcullis.support;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
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
 * <p>Nothing here follows a symbolic link or changes a file this process's user does not own: a
 * path (or its lock file) that is a link is refused with its name, files are opened with {@code
 * NOFOLLOW_LINKS}, and an existing file is taken only if it is a regular file of this user with one
 * link (a hard link to another file, say {@code /etc/passwd} as root, is refused). Only then is a
 * wider mode narrowed (docs/security.md, principle 9).
 *
 * <p>The lock file is never deleted: removing it while another process waits on it would let two
 * owners hold locks on two different files of the same name.
 */
public final class OwnedFile implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OwnedFile.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_ONLY_DIRECTORY =
      PosixFilePermissions.fromString("rwx------");

  /** This process's user id (-1 without POSIX attributes). */
  private static final long UID = posix() ? new UnixSystem().getUid() : -1;

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
    refuseLink(f, what);
    if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(what + " " + f + " is a directory, not a file");
    }
    Path lockFile = f.resolveSibling(f.getFileName() + ".lock");
    refuseLink(lockFile, what + " lock file");
    FileChannel ch;
    try {
      ch = open(lockFile, StandardOpenOption.WRITE);
    } catch (NotOurs e) {
      throw e;
    } catch (IOException e) {
      throw new IOException(
          what + " " + f + ": cannot open its lock file " + lockFile + ": " + e, e);
    }
    try {
      mine(lockFile, what + " lock file");
    } catch (IOException e) {
      ch.close();
      throw e;
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
      throw new FileInUseException(
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

  /**
   * Creates {@code f} owner-only if missing; takes an existing one only if it is this user's own
   * regular file with one link, and narrows it to owner-only then.
   */
  private static void ownerOnly(Path f, String what) throws IOException {
    try {
      open(f, StandardOpenOption.APPEND).close();
    } catch (NotOurs e) {
      throw e;
    } catch (IOException e) {
      throw new IOException(what + " " + f + " cannot be opened for writing: " + e, e);
    }
    Set<PosixFilePermission> p = mine(f, what);
    if (p != null && !p.equals(OWNER_ONLY)) {
      Files.setPosixFilePermissions(f, OWNER_ONLY);
      log.warn(
          "{} {} was {}; now owner-only (rw-------)", what, f, PosixFilePermissions.toString(p));
    }
  }

  /** Why a file cannot be taken: a link, another user's file, not a regular file. */
  static final class NotOurs extends IOException {
    private static final long serialVersionUID = 1L;

    NotOurs(String message) {
      super(message);
    }
  }

  /** Refuses {@code f} if it is a symbolic link (dangling or not), naming it and its target. */
  public static void refuseLink(Path f, String what) throws IOException {
    if (Files.isSymbolicLink(f)) {
      String to;
      try {
        to = " (to " + Files.readSymbolicLink(f) + ")";
      } catch (IOException e) {
        to = "";
      }
      throw new NotOurs(
          what
              + " "
              + f
              + " is a symbolic link"
              + to
              + "; links are not followed for files Portcullis writes: name the file itself");
    }
  }

  /**
   * Checks that {@code f} (not followed if a link) is this user's regular file with one link;
   * returns its permissions (null without POSIX attributes).
   */
  private static Set<PosixFilePermission> mine(Path f, String what) throws IOException {
    if (!posix()) {
      return null;
    }
    Map<String, Object> a =
        Files.readAttributes(f, "unix:uid,nlink,mode,isRegularFile", LinkOption.NOFOLLOW_LINKS);
    if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
      throw new NotOurs(what + " " + f + " is not a regular file");
    }
    if (((Number) a.get("uid")).longValue() != UID) {
      throw new NotOurs(
          what
              + " "
              + f
              + " belongs to user id "
              + a.get("uid")
              + ", not to this process's ("
              + UID
              + "); a file Portcullis did not create is never changed");
    }
    if (((Number) a.get("nlink")).intValue() > 1) {
      throw new NotOurs(
          what
              + " "
              + f
              + " has "
              + a.get("nlink")
              + " hard links; a file Portcullis writes has one (another name for it could be"
              + " any file of this user's)");
    }
    return Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * Makes {@code dir} (and missing parents) owner-only ({@code rwx------}) if it is missing; takes
   * an existing one only if it is a directory of this user's, not a link, and narrows it then. For
   * directories of files a server writes (the development PKI, the credential store).
   */
  public static void privateDirectory(Path dir, String what) throws IOException {
    Path d = dir.toAbsolutePath().normalize();
    refuseLink(d, what);
    if (!Files.exists(d, LinkOption.NOFOLLOW_LINKS)) {
      createMissing(d);
      return;
    }
    if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
      // Checked before anything is changed: never chmod a file that happens to be there.
      throw new NotOurs(what + " " + d + " is a file, not a directory");
    }
    if (!posix()) {
      return;
    }
    Object uid = Files.getAttribute(d, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    if (((Number) uid).longValue() != UID) {
      throw new NotOurs(
          what
              + " "
              + d
              + " belongs to user id "
              + uid
              + ", not to this process's ("
              + UID
              + "); a directory Portcullis did not create is never changed");
    }
    Set<PosixFilePermission> p = Files.getPosixFilePermissions(d, LinkOption.NOFOLLOW_LINKS);
    if (!p.equals(OWNER_ONLY_DIRECTORY)) {
      log.warn(
          "{} {} was {}; restricting it to its owner (rwx------)",
          what,
          d,
          PosixFilePermissions.toString(p));
      Files.setPosixFilePermissions(d, OWNER_ONLY_DIRECTORY);
    }
  }

  /**
   * Creates the directories of {@code dir} that are missing owner-only ({@code rwx------}) and
   * leaves those that exist as they are: for the directory of a secret named in a configuration (an
   * Integrity key, an enrolled key), which may be the configuration's own directory and is then not
   * ours to narrow, but if Portcullis makes it, nobody else may list or enter it.
   */
  public static void createMissing(Path dir) throws IOException {
    if (posix()) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
    } else {
      Files.createDirectories(dir);
    }
  }

  /** Opens (creating owner-only if missing) a file for {@code mode}, never through a link. */
  private static FileChannel open(Path f, StandardOpenOption mode) throws IOException {
    if (posix()) {
      try {
        return FileChannel.open(
            f,
            Set.of(StandardOpenOption.CREATE_NEW, mode, LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (FileAlreadyExistsException e) {
        // there already: open it as it is (a link made since the check fails below: ELOOP)
      }
    }
    try {
      return FileChannel.open(f, StandardOpenOption.CREATE, mode, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw new IOException("directory " + f.getParent() + " does not exist", e);
    } catch (FileSystemException e) {
      if (Files.isSymbolicLink(f)) {
        refuseLink(f, "file"); // became a link between the check and the open
      }
      throw e;
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
