package dev.portcullis.bench.cost;

import dev.portcullis.support.Scratch;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a run's files so that readers never see them disagree: all are written into a fresh
 * directory beside the target, which then takes the target's place by renames (the old one moved
 * aside first, then removed). A run that fails while writing leaves the previous output as it was.
 */
final class Output {
  /** What writes the files into the directory it is given. */
  interface Writer {
    void write(Path dir) throws IOException;
  }

  private Output() {}

  static void replace(Path target, Writer writer) throws IOException {
    Path abs = target.toAbsolutePath();
    Path parent = abs.getParent();
    Files.createDirectories(parent);
    Path fresh = Files.createTempDirectory(parent, abs.getFileName() + ".new-");
    try {
      writer.write(fresh);
    } catch (IOException | RuntimeException e) {
      Scratch.delete(fresh);
      throw e;
    }
    Path old = null;
    if (Files.exists(abs)) {
      old = Files.createTempDirectory(parent, abs.getFileName() + ".old-");
      Files.delete(old); // only its unique name is wanted
      move(abs, old);
    }
    move(fresh, abs);
    if (old != null) {
      Scratch.delete(old);
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to);
    }
  }
}
