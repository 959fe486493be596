package dev.portcullis.tunnel.lab;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One strongSwan charon of our own: its {@code strongswan.conf} (given by {@code STRONGSWAN_CONF}),
 * VICI socket and log in a directory of the caller's, and a private {@code /run} (charon's pid file
 * is hard-wired to {@code /run/charon.pid}, so two charons on one machine need one each: {@code
 * unshare -m}, then a bind mount). Plugins as docs/tunnels.md lists them, with userspace ESP
 * ({@code kernel-libipsec}, before {@code kernel-netlink}). Stopped by its pid.
 */
public final class CharonProcess implements AutoCloseable {
  /** charon as Debian installs it. */
  public static final Path BINARY = Path.of("/usr/lib/ipsec/charon");

  private final Process process;
  private final Path socket;

  private CharonProcess(Process process, Path socket) {
    this.process = process;
    this.socket = socket;
  }

  /** Why no charon can be started here, in one line, or null. */
  public static String unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "not root: charon needs root";
    }
    if (!Files.isExecutable(BINARY)) {
      return "strongSwan's charon is not installed (" + BINARY + "; see README, Requirements)";
    }
    return probe("unshare", "-m", "true");
  }

  /**
   * Runs {@code command} (a harmless probe) and says why it failed, in one line, or null: a
   * container may be root without the capabilities namespaces need.
   */
  static String probe(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).strip();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return String.join(" ", command) + " did not end";
      }
      return p.exitValue() == 0
          ? null
          : String.join(" ", command)
              + " fails here ("
              + out.lines().findFirst().orElse("exit " + p.exitValue())
              + ")";
    } catch (IOException e) {
      return String.join(" ", command) + " cannot run: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /**
   * Starts charon with its files in {@code dir}, run through {@code prefix} (say {@code ip netns
   * exec NS}; empty for none); {@code ikePorts} false: IKE on no fixed port (a charon driven over
   * VICI only, beside others). Returns once charon answers on its socket.
   */
  public static CharonProcess start(Path dir, List<String> prefix, boolean ikePorts)
      throws IOException, InterruptedException {
    Path run = Files.createDirectories(dir.resolve("run"));
    Path socket = dir.resolve("charon.vici");
    Path conf = dir.resolve("strongswan.conf");
    Files.writeString(
        conf,
        """
        charon {
          load_modular = no
          load = random nonce openssl aes sha1 sha2 hmac kdf gcm pem pkcs1 pkcs8 x509 pubkey constraints gmp kernel-libipsec kernel-netlink socket-default vici
          %PORTS%
          plugins {
            vici {
              socket = unix://%SOCKET%
            }
          }
          filelog {
            log {
              path = %LOG%
              default = 1
              flush_line = yes
            }
          }
        }
        """
            .replace("%PORTS%", ikePorts ? "" : "port = 0\n  port_nat_t = 0")
            .replace("%SOCKET%", socket.toString())
            .replace("%LOG%", dir.resolve("charon.log").toString()));
    List<String> command = new ArrayList<>(prefix);
    command.addAll(
        List.of(
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            "mount --bind '" + run + "' /run && exec " + BINARY));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("STRONGSWAN_CONF", conf.toString());
    pb.redirectErrorStream(true).redirectOutput(dir.resolve("charon.out").toFile());
    CharonProcess c = new CharonProcess(pb.start(), socket);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!c.answers() && c.process.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20); // charon listens on its VICI socket once its plugins are loaded
    }
    if (!c.answers()) {
      c.close();
      throw new IOException(
          "charon did not answer on "
              + socket
              + ": "
              + tail(dir.resolve("charon.out"))
              + tail(dir.resolve("charon.log")));
    }
    return c;
  }

  /** Its VICI socket. */
  public Path socket() {
    return socket;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  private boolean answers() {
    if (!Files.exists(socket)) {
      return false;
    }
    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      return ch.isConnected();
    } catch (IOException e) {
      return false;
    }
  }

  private static String tail(Path f) {
    try {
      List<String> lines = Files.readAllLines(f);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }

  /** Kills it at once (SIGKILL), as a crash would. */
  public void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
  }

  /** Stops it (SIGTERM: its SAs are deleted), SIGKILL after 5 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
