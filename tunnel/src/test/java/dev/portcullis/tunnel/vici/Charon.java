package dev.portcullis.tunnel.vici;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real strongSwan charon for a test: its own {@code strongswan.conf}, VICI socket and log in the
 * test's directory, and its own {@code /run} (charon's pid file is hard-wired to {@code
 * /run/charon.pid}), in a private mount namespace; stopped by its pid when the test ends. IKE
 * listens on no port ({@code port = 0}): these tests drive the control socket only.
 */
final class Charon implements AutoCloseable {
  static final Path BINARY = Path.of("/usr/lib/ipsec/charon");

  final Path socket;
  private final Process process;

  /** Why no charon can be run here, in one line, or null if one can. */
  static String unavailable() {
    if (!Files.isExecutable(BINARY)) {
      return "strongSwan's charon is not installed (" + BINARY + "; see README, Requirements)";
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      return "not root: charon needs root to start";
    }
    if (!Files.isExecutable(Path.of("/usr/bin/unshare"))) {
      return "no unshare(1) for charon's private /run";
    }
    return null;
  }

  Charon(Path dir) throws IOException, InterruptedException {
    Path run = Files.createDirectories(dir.resolve("run"));
    socket = dir.resolve("charon.vici");
    Path conf = dir.resolve("strongswan.conf");
    Files.writeString(
        conf,
        """
        charon {
          load_modular = no
          load = random nonce openssl aes sha1 sha2 hmac kdf gcm pem pkcs1 pkcs8 x509 pubkey constraints gmp kernel-libipsec kernel-netlink socket-default vici
          port = 0
          port_nat_t = 0
          plugins {
            vici {
              socket = unix://%SOCKET%
            }
          }
          filelog {
            log {
              path = %LOG%
              default = 1
            }
          }
        }
        """
            .replace("%SOCKET%", socket.toString())
            .replace("%LOG%", dir.resolve("charon.log").toString()));
    ProcessBuilder pb =
        new ProcessBuilder(
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            "mount --bind '" + run + "' /run && exec " + BINARY);
    pb.environment().put("STRONGSWAN_CONF", conf.toString());
    pb.redirectErrorStream(true).redirectOutput(dir.resolve("charon.out").toFile());
    process = pb.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!answers() && process.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(20); // charon listens on its VICI socket once its plugins are loaded
    }
    if (!answers()) {
      close();
      throw new IOException(
          "charon did not answer on "
              + socket
              + ": "
              + Files.readString(dir.resolve("charon.out"))
              + (Files.exists(dir.resolve("charon.log"))
                  ? Files.readString(dir.resolve("charon.log"))
                  : ""));
    }
  }

  private boolean answers() {
    if (!Files.exists(socket)) {
      return false;
    }
    try (var ch =
        java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(socket))) {
      return ch.isConnected();
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() {
    process.destroy(); // SIGTERM: charon stops cleanly
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
