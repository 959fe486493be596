package dev.portcullis.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * Temporary directories (configs, keys, policies a harness, test or example writes), removed with
 * all they hold.
 */
public final class Scratch {
  private Scratch() {}

  /** Deletes {@code dir} and everything below it. */
  public static void delete(Path dir) throws IOException {
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }
}
