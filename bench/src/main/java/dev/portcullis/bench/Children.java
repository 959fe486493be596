package dev.portcullis.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The bench's child processes (a PDP of another build, OPA, HAProxy, wrk, the C programs), run and
 * stopped one way: a child that does not end in time is killed and named, and stopping one never
 * throws, so that a harness's {@code finally} and {@code close()} always get to the next child.
 */
final class Children {
  private Children() {}

  /**
   * Runs {@code command} to its end and returns what it wrote (stdout and stderr together).
   *
   * @throws IOException if it cannot be started, or does not end within {@code limit} (then it is
   *     killed)
   */
  static String output(List<String> command, Duration limit)
      throws IOException, InterruptedException {
    // into a file, not a pipe: a child that never closes its output cannot hold up the limit
    Path out = Files.createTempFile("portcullis-child-", ".out");
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(out.toFile()))
            .start();
    try {
      if (!p.waitFor(limit.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new IOException(command.get(0) + " did not end within " + limit.toSeconds() + " s");
      }
      return Files.readString(out, StandardCharsets.UTF_8);
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
      }
      Files.deleteIfExists(out);
    }
  }

  /**
   * What {@code command} says about itself ({@code haproxy -v}, {@code opa version}), or null if it
   * cannot be run: for a report's header, where a missing version is no reason to stop.
   */
  static String version(List<String> command) {
    try {
      return output(command, Duration.ofSeconds(10));
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * Asks {@code p} to end (SIGTERM), waits at most {@code grace}, then kills it. An interrupt while
   * waiting kills it at once and is kept for the caller to see.
   */
  static void stop(Process p, Duration grace) {
    p.destroy();
    try {
      if (!p.waitFor(grace.toNanos(), TimeUnit.NANOSECONDS)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }
}
