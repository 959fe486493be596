package dev.portcullis.tunnel.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A TCP stream across the lab (netperf's TCP_STREAM in miniature): a sink in side b's namespace
 * counts what arrives, a source in side a's writes for a while; both are this class run as a JVM
 * inside the namespace ({@code ip netns exec}), so the bytes cross the veth — through a tunnel when
 * the addresses are a tunnel's inner ones. With the machine's CPU use over the run, the dynamic VPN
 * tunnels paper's unit: cycles per byte.
 */
public final class StreamProbe {
  /**
   * What one stream carried.
   *
   * @param bytes received by the sink
   * @param nanos from the source's first write to its close
   * @param cyclesPerByte the whole machine's busy CPU cycles over the run, per byte (both ends,
   *     both charons, the JVMs: on one host that is the cost of moving a byte through)
   */
  public record Result(long bytes, long nanos, double cyclesPerByte) {
    public double megabitsPerSecond() {
      return bytes * 8e3 / nanos;
    }
  }

  private StreamProbe() {}

  /** Streams from {@code from} (side a) to {@code to} (side b) for {@code d}. */
  public static Result run(NetworkLab lab, Path dir, String from, String to, Duration d)
      throws IOException, InterruptedException {
    try (LabJvm sink = LabJvm.listen(lab, dir, StreamProbe.class, List.of("sink", to))) {
      long[] before = cpu();
      String sent =
          LabJvm.run(
              lab, StreamProbe.class, List.of("source", from, to, Long.toString(d.toMillis())));
      long[] after = cpu();
      long bytes = LabJvm.field(sink.finish(), "received");
      long nanos = LabJvm.field(sent, "nanos");
      double busySeconds = (after[0] - before[0]) / (double) after[1];
      return new Result(bytes, nanos, bytes == 0 ? 0 : busySeconds * cpuHz() / bytes);
    }
  }

  /** Busy jiffies of all cores (user, nice, system, irq, softirq, steal) and jiffies per second. */
  private static long[] cpu() throws IOException {
    String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long busy = 0;
    for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
      busy += Long.parseLong(f[i]);
    }
    return new long[] {busy, 100}; // USER_HZ is 100 on Linux
  }

  /** The CPU clock from /proc/cpuinfo (the first core's), in Hz; 0 if it says none. */
  private static double cpuHz() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
      if (line.startsWith("cpu MHz")) {
        return Double.parseDouble(line.substring(line.indexOf(':') + 1).trim()) * 1e6;
      }
    }
    return 0;
  }

  /** {@code sink ADDRESS} or {@code source FROM TO MILLIS}: the two ends, run in a namespace. */
  public static void main(String[] args) throws IOException {
    int port = 5201;
    if (args.length == 2 && args[0].equals("sink")) {
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getByName(args[1]), port));
        System.out.println("listening");
        System.out.flush();
        try (Socket c = s.accept();
            InputStream in = c.getInputStream()) {
          byte[] buf = new byte[1 << 16];
          long n = 0;
          for (int r; (r = in.read(buf)) >= 0; ) {
            n += r;
          }
          System.out.println("received " + n);
        }
      }
    } else if (args.length == 4 && args[0].equals("source")) {
      try (Socket c = new Socket()) {
        c.bind(new InetSocketAddress(InetAddress.getByName(args[1]), 0));
        c.connect(new InetSocketAddress(InetAddress.getByName(args[2]), port), 10_000);
        OutputStream out = c.getOutputStream();
        byte[] buf = new byte[1 << 14];
        long t0 = System.nanoTime();
        long end = t0 + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
        while (System.nanoTime() < end) {
          out.write(buf);
        }
        c.shutdownOutput();
        try (BufferedReader r =
            new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.UTF_8))) {
          r.readLine(); // the sink's close: everything was read
        }
        System.out.println("nanos " + (System.nanoTime() - t0));
      }
    } else {
      System.err.println("usage: " + List.of("sink ADDRESS", "source FROM TO MILLIS"));
      System.exit(2);
    }
  }
}
