package dev.portcullis.examples;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Scratch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A PDP for an example to talk to: {@code pdp.xml} and policy files written to a fresh directory,
 * the server listening on a free loopback port. Closing it stops the server (PEPs get Client-Close
 * "shutting down") and deletes the directory.
 */
final class LocalPdp implements AutoCloseable {
  private final Path dir;
  private final PdpServer server;

  private LocalPdp(Path dir, PdpServer server) {
    this.dir = dir;
    this.server = server;
  }

  /**
   * Starts a PDP whose configuration is {@code pdpXml} (listen on port 0 there) beside the files in
   * {@code files} (name to contents).
   */
  static LocalPdp start(String pdpXml, Map<String, String> files)
      throws IOException, ConfigException {
    Path dir = Files.createTempDirectory("portcullis-example-");
    try {
      for (Map.Entry<String, String> f : files.entrySet()) {
        Files.writeString(dir.resolve(f.getKey()), f.getValue());
      }
      Path config = Files.writeString(dir.resolve("pdp.xml"), pdpXml);
      return new LocalPdp(dir, PdpServer.start(PdpConfig.load(config), 1));
    } catch (IOException | ConfigException | RuntimeException e) {
      try {
        Scratch.delete(dir);
      } catch (IOException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
  }

  PdpServer server() {
    return server;
  }

  InetSocketAddress address() {
    return server.address();
  }

  /** Replaces one of the files the PDP was started with (a policy, before a reload). */
  void write(String name, String contents) throws IOException {
    Files.writeString(dir.resolve(name), contents);
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      try {
        Scratch.delete(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
