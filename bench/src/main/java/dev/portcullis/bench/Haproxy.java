package dev.portcullis.bench;

import dev.portcullis.support.HostPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The anchor the PEP proxy is measured against: HAProxy (Debian's {@code haproxy}) forwarding TCP
 * to the same upstream, with no authorization, one thread like the proxy's one event loop, and its
 * defaults otherwise (no splicing). Started as a child process in the foreground; {@link #find}
 * says why there is none.
 */
public final class Haproxy implements AutoCloseable {
  private final Process process;
  private final InetSocketAddress address;

  private Haproxy(Process process, InetSocketAddress address) {
    this.process = process;
    this.address = address;
  }

  /** The {@code haproxy} executable on the PATH, or null. */
  public static Path find() {
    return Executables.find("haproxy", Path.of("/usr/sbin/haproxy")); // Debian's, not on the PATH
  }

  /** Starts HAProxy in {@code dir} in front of {@code upstream}; ready when this returns. */
  public static Haproxy start(Path binary, Path dir, InetSocketAddress upstream)
      throws IOException, InterruptedException {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    return start(
        List.of(),
        binary,
        dir,
        new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
        upstream,
        a -> {
          try (Socket s = new Socket()) {
            s.connect(a, 100);
            return true;
          } catch (IOException notYet) {
            return false;
          }
        });
  }

  /**
   * Starts HAProxy through {@code launcher} (none, or e.g. {@code ip netns exec NS}) in {@code
   * dir}, bound to {@code bind}, in front of {@code upstream}; ready when this returns, which
   * {@code listening} tells (a connect that succeeds from where clients are).
   */
  public static Haproxy start(
      List<String> launcher,
      Path binary,
      Path dir,
      InetSocketAddress bind,
      InetSocketAddress upstream,
      java.util.function.Predicate<InetSocketAddress> listening)
      throws IOException, InterruptedException {
    Path cfg = dir.resolve("haproxy.cfg");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "global",
            "    nbthread 1",
            "    maxconn 4000", // under the usual 8,192..20,000 descriptor limits: it needs two per
            // connection
            "defaults",
            "    mode tcp",
            "    timeout connect 5s",
            "    timeout client 1m",
            "    timeout server 1m",
            "listen anchor",
            "    bind " + HostPort.of(bind),
            "    server upstream " + HostPort.of(upstream),
            ""));
    List<String> command = new java.util.ArrayList<>(launcher);
    command.addAll(List.of(binary.toString(), "-db", "-f", cfg.toString()));
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("haproxy.log").toFile())
            .start();
    for (int i = 0; i < 500; i++) {
      if (!p.isAlive()) {
        throw new IOException(
            "haproxy exited with status "
                + p.exitValue()
                + ": "
                + Files.readString(dir.resolve("haproxy.log")).strip());
      }
      if (listening.test(bind)) {
        return new Haproxy(p, bind);
      }
      Thread.sleep(10);
    }
    p.destroyForcibly();
    throw new IOException("haproxy did not listen on " + HostPort.of(bind) + " within 5 s");
  }

  public InetSocketAddress address() {
    return address;
  }

  /** {@code haproxy -v}'s first line, for the report. */
  public static String version(Path binary) {
    String out = Children.version(List.of(binary.toString(), "-v"));
    return out == null ? "haproxy (version unknown)" : out.lines().findFirst().orElse("").strip();
  }

  @Override
  public void close() {
    Children.stop(process, Duration.ofSeconds(5));
  }
}
