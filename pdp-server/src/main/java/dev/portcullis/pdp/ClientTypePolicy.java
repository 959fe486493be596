package dev.portcullis.pdp;

import dev.portcullis.pdp.policy.EngineEnvironment;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The engine serving one client type, replaced atomically on reload: from the configured file, or
 * from a version published to the fleet ({@link FleetPolicies}).
 */
final class ClientTypePolicy {
  final int clientType;
  final PolicyEngineProvider provider;
  final Path file;
  final boolean watch;
  private final EngineEnvironment environment;
  private volatile PolicyEngine engine;
  private byte[] lastFile; // the configured file's bytes when last looked at (null: unreadable)
  private byte[] running; // the policy the engine was loaded from

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
    this.lastFile = read();
    this.engine = provider.load(file, null, environment);
    this.running = lastFile;
  }

  PolicyEngine engine() {
    return engine;
  }

  /** The bytes of the policy in force (null if the file could not be read back at start). */
  synchronized byte[] running() {
    return running;
  }

  /**
   * Loads the configured file again and installs the new engine.
   *
   * @return the new engine
   * @throws ConfigException if the file is invalid; the current engine stays
   */
  synchronized PolicyEngine reload() throws ConfigException {
    byte[] content = read();
    PolicyEngine next = provider.load(file, engine, environment);
    engine = next;
    lastFile = content;
    running = content;
    return next;
  }

  /**
   * Installs a policy published to the fleet, loaded from a copy in {@code scratch} (a directory of
   * this PDP's) named like the configured file.
   *
   * @throws ConfigException if it does not load here; the current engine stays
   */
  synchronized PolicyEngine reload(byte[] content, Path scratch) throws ConfigException {
    Path copy = scratch.resolve(file.getFileName());
    try {
      Files.write(copy, content);
    } catch (IOException e) {
      throw new ConfigException(copy.toString(), "cannot write: " + e.getMessage(), e);
    }
    PolicyEngine next = provider.load(copy, engine, environment);
    engine = next;
    running = content.clone();
    return next;
  }

  /** True if the file's bytes differ from those last looked at (a rejected version only once). */
  synchronized boolean changed() {
    byte[] now = read();
    if (now == null || Arrays.equals(now, lastFile)) {
      return false;
    }
    lastFile = now;
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
