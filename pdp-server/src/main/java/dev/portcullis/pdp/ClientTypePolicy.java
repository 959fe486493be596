package dev.portcullis.pdp;

import dev.portcullis.cops.ClientTypes;
import dev.portcullis.pdp.policy.EngineEnvironment;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.state.StateStore;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.WatchedFile;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine serving one client type, replaced atomically on reload: from the configured file, or
 * from a version published to the fleet ({@link FleetPolicies}).
 */
final class ClientTypePolicy {
  private static final Logger log = LoggerFactory.getLogger(ClientTypePolicy.class);

  final int clientType;
  final PolicyEngineProvider provider;
  final Path file;
  final boolean watch;
  private final EngineEnvironment environment;
  private volatile PolicyEngine engine;
  private final WatchedFile watched;
  private byte[] running; // the policy the engine was loaded from

  /**
   * The engines of every configured client type, loaded from their files with the engine providers
   * found by name ({@link PolicyEngineProvider}, ServiceLoader); {@code changed} hears of a change
   * of shared or session state under a client type's decisions (alone or in a fleet).
   *
   * @throws ConfigException naming the client type and the engines there are, or the policy file
   */
  static IntObjectMap<ClientTypePolicy> loadAll(
      PdpConfig config, StateStore store, BiConsumer<Integer, Predicate<PolicyRequest>> changed)
      throws ConfigException {
    Map<String, PolicyEngineProvider> providers = new HashMap<>();
    for (PolicyEngineProvider p :
        ServiceLoader.load(PolicyEngineProvider.class, ClientTypePolicy.class.getClassLoader())) {
      providers.putIfAbsent(p.name(), p);
    }
    // read per request by every event loop, never changed once loaded: int keys, no boxing
    IntObjectMap<ClientTypePolicy> policies = new IntObjectHashMap<>();
    for (PdpConfig.ClientTypeConfig c : config.clientTypes().values()) {
      PolicyEngineProvider p = providers.get(c.engine());
      if (p == null) {
        throw new ConfigException(
            config.source(),
            "client type "
                + ClientTypes.hex(c.code())
                + ": engine "
                + c.engine()
                + " (expected: one of "
                + providers.keySet()
                + ")",
            null);
      }
      int type = c.code();
      // Alone or in a fleet, a change of shared or session state re-decides what it affects.
      EngineEnvironment env =
          new EngineEnvironment(
              store, store != null && c.linearizable(), affected -> changed.accept(type, affected));
      ClientTypePolicy policy = new ClientTypePolicy(c.code(), p, c.policy(), c.watch(), env);
      log.info(
          "client type {}: {} engine, {}",
          ClientTypes.hex(c.code()),
          c.engine(),
          policy.engine().describe());
      policies.put(c.code(), policy);
    }
    return policies;
  }

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
    this.watched = new WatchedFile(file);
    this.running = watched.take();
    this.engine = provider.load(file, null, environment);
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
    byte[] content = watched.take();
    PolicyEngine next = provider.load(file, engine, environment);
    engine = next;
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
      dev.portcullis.support.DurableFiles.write(copy, content);
    } catch (IOException e) {
      throw new ConfigException(copy.toString(), "cannot write: " + e.getMessage(), e);
    }
    PolicyEngine next = provider.load(copy, engine, environment);
    engine = next;
    running = content.clone();
    return next;
  }

  /** True if the file's bytes differ from those last looked at (a rejected version only once). */
  boolean changed() {
    return watched.changed();
  }
}
