package dev.portcullis.bench.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Tests write under their own module's {@code target/}, never into the checkout's top-level {@code
 * target/}: that is where the README's walk-throughs make the development PKI, the ROSA PKI and the
 * sample tokens, and "the first run makes a development CA ... and says so" must still happen after
 * the test command (issue 47: it did not, the tests had made them). Run in bench, the reactor's
 * last module with tests: whatever in the top-level {@code target/} is newer than this build's
 * first compiled classes ({@code support/target/classes}) was made by the build.
 */
class TestsLeaveTheCheckoutAloneTest {
  @Test
  void nothingInTheTopLevelTargetIsNewerThanThisBuild() throws IOException {
    Path top = Path.of("..", "target");
    Path firstClasses = Path.of("..", "support", "target", "classes");
    Assumptions.assumeTrue(
        Files.isDirectory(firstClasses), "no support/target/classes: not run in the reactor");
    FileTime buildBegan = Files.getLastModifiedTime(firstClasses);
    List<String> made = new ArrayList<>();
    if (Files.isDirectory(top)) {
      try (Stream<Path> s = Files.list(top)) {
        for (Path p : (Iterable<Path>) s::iterator) {
          if (!p.equals(top)
              && !p.getFileName().toString().equals("spotless-index")
              && Files.getLastModifiedTime(p).compareTo(buildBegan) > 0) {
            made.add(top.relativize(p).toString());
          }
        }
      }
    }
    assertEquals(
        List.of(),
        made,
        "made in the checkout's top-level target/ during this build (a test must write under its"
            + " own module's target/ or a @TempDir: copy the sample with SampleConfigs.copyInto;"
            + " made by hand since support was compiled: remove it)");
  }
}
