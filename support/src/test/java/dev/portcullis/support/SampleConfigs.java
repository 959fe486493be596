package dev.portcullis.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The checkout's sample configurations ({@code config/}), copied for a test into {@code dir/config}
 * so that what they make by relative path ({@code ../target/dev-pki}, {@code ../target/rosa-pki},
 * tokens) lands in {@code dir/target}, never in the checkout's own top-level {@code target/}: the
 * README's first run makes those and says so (issue 47). In the support module's test jar.
 */
public final class SampleConfigs {
  private SampleConfigs() {}

  /**
   * Copies every file of {@code config/} (run from a module's directory: {@code ../config}) into
   * {@code dir/config} and returns that directory.
   */
  public static Path copyInto(Path dir) {
    Path from = Path.of("..", "config");
    Path to = dir.resolve("config");
    try (Stream<Path> files = Files.list(from)) {
      Files.createDirectories(to);
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          Files.copy(f, to.resolve(f.getFileName()));
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException("copying the sample configurations of " + from, e);
    }
  }
}
