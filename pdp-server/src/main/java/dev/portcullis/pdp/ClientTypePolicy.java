package dev.portcullis.pdp;

import dev.portcullis.pdp.policy.EngineEnvironment;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/** The engine serving one client type, replaced atomically on reload. */
final class ClientTypePolicy {
  final int clientType;
  final PolicyEngineProvider provider;
  final Path file;
  final boolean watch;
  private final EngineEnvironment environment;
  private volatile PolicyEngine engine;
  private byte[] lastContent;

  ClientTypePolicy(
      int clientType,
      PolicyEngineProvider provider,
      Path file,
      boolean watch,
      EngineEnvironment environment)
      throws ConfigException {
    this.clientType = clientType;
    this.provider = provider;
    this.file = file;
    this.watch = watch;
    this.environment = environment;
    this.lastContent = read();
    this.engine = provider.load(file, null, environment);
  }

  PolicyEngine engine() {
    return engine;
  }

  /**
   * Loads the file again and installs the new engine.
   *
   * @return the new engine
   * @throws ConfigException if the file is invalid; the current engine stays
   */
  synchronized PolicyEngine reload() throws ConfigException {
    byte[] content = read();
    PolicyEngine next = provider.load(file, engine, environment);
    engine = next;
    lastContent = content;
    return next;
  }

  /** True if the file's bytes differ from those last loaded (or last rejected). */
  synchronized boolean changed() {
    byte[] now = read();
    if (now == null || Arrays.equals(now, lastContent)) {
      return false;
    }
    lastContent = now; // a rejected version is reported once
    return true;
  }

  private byte[] read() {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      return null;
    }
  }
}
