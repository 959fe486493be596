package dev.portcullis.bench.cost;

import dev.portcullis.support.DurableFiles;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Writes a run's files into the output directory, each replaced on its own (written beside it, then
 * renamed over it atomically), and nothing else there touched: a file the user keeps in {@code
 * --out} stays, and the directory keeps its mode (a missing one is made owner-only). Before, the
 * whole directory was replaced: {@code --out .} lost everything in it (docs/security.md, principle
 * 9). A run that fails while writing a file leaves that file as it was.
 */
final class Output {
  private Output() {}

  /** Writes {@code name} in directory {@code dir} with {@code writer}. */
  static void write(Path dir, String name, DurableFiles.Writer writer) throws IOException {
    DurableFiles.replace(dir.resolve(name), writer);
  }
}
