package dev.portcullis.tunnel.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM of this class path run inside one side of the lab, for what must live in a namespace of its
 * own: a receiving end started in side b that says {@code listening} when ready ({@link #listen}),
 * and a sending end run to completion in side a ({@link #run}).
 */
public final class LabJvm implements AutoCloseable {
  private final Process process;
  private final Path output;

  private LabJvm(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  private static List<String> command(Class<?> main, List<String> args) {
    List<String> c = new ArrayList<>();
    c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    c.add("-cp");
    c.add(System.getProperty("java.class.path"));
    c.add(main.getName());
    c.addAll(args);
    return c;
  }

  /** Starts {@code main} with {@code args} in side b; back once it printed "listening". */
  public static LabJvm listen(NetworkLab lab, Path dir, Class<?> main, List<String> args)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "jvm-", ".txt");
    Process p = lab.spawn(lab.b(), out, command(main, args).toArray(new String[0]));
    LabJvm j = new LabJvm(p, out);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    // a JVM starting in the namespace: a real wait on another process
    while (!Files.readString(out).contains("listening") && System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IOException(main.getSimpleName() + " ended: " + Files.readString(out));
      }
      Thread.sleep(20);
    }
    return j;
  }

  /** Runs {@code main} with {@code args} in side a to its end; its output. */
  public static String run(NetworkLab lab, Class<?> main, List<String> args)
      throws IOException, InterruptedException {
    return lab.exec(lab.a(), command(main, args).toArray(new String[0]));
  }

  /** Waits for the listening JVM to end (at most 20 s); its output. */
  public String finish() throws IOException, InterruptedException {
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      throw new IOException("did not finish: " + Files.readString(output));
    }
    return Files.readString(output);
  }

  /** The line {@code NAME VALUE} of {@code text}, as a number. */
  public static long field(String text, String name) throws IOException {
    for (String line : text.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Long.parseLong(line.substring(name.length() + 1).trim());
      }
    }
    throw new IOException("no " + name + " in: " + text);
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
