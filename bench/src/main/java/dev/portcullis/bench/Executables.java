package dev.portcullis.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finding the programs the harnesses measure against. */
final class Executables {
  private Executables() {}

  /** {@code name} on the PATH, else the first of {@code elsewhere} that is executable, or null. */
  static Path find(String name, Path... elsewhere) {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(File.pathSeparator)) {
        Path p = Path.of(d, name);
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    for (Path p : elsewhere) {
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }
}
