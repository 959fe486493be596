package dev.portcullis.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * The C side of {@link PdpLoad}, in this jar as source and built with the machine's {@code gcc}
 * into a scratch folder: {@code c/cops-responder.c}, the anchor (an epoll responder that answers
 * every message it frames with one fixed DEC and does nothing else), and {@code c/cops-load.c}, a
 * load generator that costs little enough per message that a fast responder is what is measured,
 * not the generator. {@link #why} says why there are none.
 */
final class CPrograms {
  private final Path responder;
  private final Path load;
  private final long ticksPerSecond;

  private CPrograms(Path responder, Path load, long ticksPerSecond) {
    this.responder = responder;
    this.load = load;
    this.ticksPerSecond = ticksPerSecond;
  }

  /** A load's outcome: answers per second over the measured window, and all answers of the run. */
  record Load(double perSecond, long answers) {}

  /** Null when they can be built here, else the reason in a few words. */
  static String why() {
    return Executables.find("gcc") == null ? "gcc not found on the PATH" : null;
  }

  /** Builds both into {@code dir}. */
  static CPrograms build(Path dir) throws IOException, InterruptedException {
    copy("cops-frame.h", dir); // the framing both include
    String tck = Children.output(List.of("getconf", "CLK_TCK"), Duration.ofSeconds(10)).strip();
    return new CPrograms(
        compile(dir, "cops-responder"),
        compile(dir, "cops-load"),
        tck.matches("[0-9]+") ? Long.parseLong(tck) : 100);
  }

  private static Path compile(Path dir, String name) throws IOException, InterruptedException {
    Path source = copy(name + ".c", dir);
    Path binary = dir.resolve(name);
    String out =
        Children.output(
            List.of("gcc", "-O2", "-pthread", "-o", binary.toString(), source.toString()),
            Duration.ofMinutes(1));
    if (!Files.isExecutable(binary)) {
      throw new IOException("gcc could not build " + name + ".c: " + out.strip());
    }
    return binary;
  }

  /** Copies {@code c/FILE} from this jar into {@code dir}. */
  private static Path copy(String file, Path dir) throws IOException {
    Path to = dir.resolve(file);
    try (InputStream in = CPrograms.class.getResourceAsStream("/c/" + file)) {
      if (in == null) {
        throw new IOException("c/" + file + " is not in the benchmarks jar");
      }
      Files.copy(in, to);
    }
    return to;
  }

  /** A started responder answering {@code dec} on {@code threads} event loops. */
  Responder responder(byte[] dec, int threads) throws IOException {
    Process p =
        new ProcessBuilder(
                responder.toString(), HexFormat.of().formatHex(dec), Integer.toString(threads))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
    String line = out.readLine(); // "port N" once listening, or nothing if it failed
    if (line == null || !line.startsWith("port ")) {
      p.destroyForcibly();
      throw new IOException("the C responder did not start (it said: " + line + ")");
    }
    int port = Integer.parseInt(line.substring(5).strip());
    return new Responder(
        p, new InetSocketAddress(InetAddress.getLoopbackAddress(), port), ticksPerSecond);
  }

  /**
   * Answers per second from {@code to} under {@code connections} x {@code outstanding} requests
   * (the {@code requests}, one per handle, each {@code reqLength} bytes), opened with {@code opn}
   * if not null, counted over {@code measureMs} after {@code settleMs}.
   */
  Load rate(
      InetSocketAddress to,
      byte[] opn,
      byte[] requests,
      int outstanding,
      int connections,
      long settleMs,
      long measureMs)
      throws IOException, InterruptedException {
    String out =
        Children.output(
            List.of(
                load.toString(),
                Integer.toString(to.getPort()),
                opn == null ? "-" : HexFormat.of().formatHex(opn),
                HexFormat.of().formatHex(requests),
                Integer.toString(outstanding),
                Integer.toString(connections),
                Long.toString(settleMs),
                Long.toString(measureMs)),
            Duration.ofMillis(settleMs + measureMs).plusSeconds(30));
    String[] f = out.strip().split(" ");
    if (f.length != 4 || !f[0].equals("answers/s") || !f[2].equals("total")) {
      throw new IOException("the C load generator failed: " + out.strip());
    }
    return new Load(Double.parseDouble(f[1]), Long.parseLong(f[3]));
  }

  /** The running responder; closing it ends it. */
  static final class Responder implements AutoCloseable {
    private final Process process;
    private final InetSocketAddress address;
    private final long ticksPerSecond;

    private Responder(Process process, InetSocketAddress address, long ticksPerSecond) {
      this.process = process;
      this.address = address;
      this.ticksPerSecond = ticksPerSecond;
    }

    InetSocketAddress address() {
      return address;
    }

    /** The CPU time it has used, user and system, from /proc (in clock ticks, so ~10 ms). */
    long cpuNanos() throws IOException {
      String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
      // after the command's name in parentheses: state is field 3, utime 14, stime 15
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks * 1_000_000_000L / ticksPerSecond;
    }

    @Override
    public void close() {
      try {
        process.getOutputStream().close(); // its stdin closing is its signal to end
      } catch (IOException e) {
        // gone already
      }
      Children.stop(process, Duration.ofSeconds(5)); // SIGTERM only if stdin did not end it
    }
  }
}
