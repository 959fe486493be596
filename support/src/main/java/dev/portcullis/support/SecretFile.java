package dev.portcullis.support;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A secret a configuration names by its file (an Integrity key, an application manager's token):
 * random bytes as hex, made owner-only when the configuration asks for it.
 */
public final class SecretFile {
  private static final SecureRandom RANDOM = new SecureRandom();

  private SecretFile() {}

  /**
   * Writes {@code bytes} random bytes as hex to {@code f}, owner-only, whole or not at all; its
   * missing directories are made owner-only ({@link OwnedFile#createMissing}). A racing creator
   * wins: its file is kept.
   */
  public static void createRandomHex(Path f, int bytes) throws IOException {
    Path dir = f.toAbsolutePath().getParent();
    OwnedFile.createMissing(dir);
    byte[] key = new byte[bytes];
    RANDOM.nextBytes(key);
    Path tmp = Files.createTempFile(dir, ".secret", ".tmp");
    try {
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system
      }
      Files.writeString(tmp, HexFormat.of().formatHex(key) + "\n", StandardCharsets.US_ASCII);
      try {
        Files.move(tmp, f);
      } catch (FileAlreadyExistsException e) {
        // another process made it first; use theirs
      }
    } finally {
      Arrays.fill(key, (byte) 0);
      Files.deleteIfExists(tmp);
    }
  }
}
