package dev.portcullis.active;

import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.code.CodeServer;
import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.config.RosaPki;
import dev.portcullis.active.fleet.FleetKci;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.source.Source;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts the parts of one domain from its configuration: what each command line runs. */
public final class Domain {
  private static final Logger log = LoggerFactory.getLogger(Domain.class);

  private final RosaConfig config;
  private final RosaPki pki;
  private final CryptoRegistry registry;
  private final Clock clock;

  public Domain(RosaConfig config, Clock clock) throws IOException, ConfigException {
    this.config = config;
    this.pki = RosaPki.ensure(config);
    this.registry = CryptoRegistry.open(config.cryptoConfig());
    log.info("crypto: {}", registry.summary());
    registry.addListener(t -> log.info("crypto: switched to {}", registry.summary()));
    this.clock = clock;
  }

  public RosaConfig config() {
    return config;
  }

  public RosaPki pki() {
    return pki;
  }

  public CryptoRegistry registry() {
    return registry;
  }

  public CodeServer codeServer() throws IOException {
    Path work = Files.createTempDirectory("rosa-code-server");
    work.toFile().deleteOnExit();
    return new CodeServer(
        config, pki, config.codeServer().listen(), work, HttpsEndpoint.Limits.DEFAULT, fleetKci());
  }

  public AuthServer authServer() throws IOException, InterruptedException {
    CodeServerClient cs =
        new CodeServerClient(
            config.codeServer().listen(), pki.clientContext(RosaConfig.AUTH_SERVER_IDENTITY));
    return new AuthServer(
        config,
        pki,
        registry,
        cs,
        clock,
        config.authServer().listen(),
        config.pkiDirectory().resolveSibling("auth-audit.jsonl"),
        HttpsEndpoint.Limits.DEFAULT,
        fleetKci());
  }

  /**
   * With {@code <state>} in rosa.xml, what this Authorization Server shares with its replicas (its
   * store and key-encryption key); null without.
   */
  public FleetKci fleetKci() throws IOException {
    if (config.state() == null) {
      return null;
    }
    try {
      byte[] kek = config.state().kek();
      StateStore store = config.state().open();
      return new FleetKci(store, registry, kek);
    } catch (StoreException e) {
      throw new IOException("state store (" + config.source() + " <state>): " + e.getMessage(), e);
    }
  }

  public ActiveRouter router(String id) throws IOException, InterruptedException {
    config.router(id); // "no such router", before anything is set up for it
    CodeServerClient cs = new CodeServerClient(config.codeServer().listen(), pki.clientContext(id));
    return new ActiveRouter(config, id, registry, cs, clock);
  }

  public Source source(String user) throws IOException {
    if (config.user(user) == null) {
      throw new IllegalArgumentException(
          "no user '"
              + user
              + "' in "
              + config.source()
              + " (users: "
              + config.users().keySet()
              + ")");
    }
    return new Source(
        config.authServer().listen(), pki.clientContext(user), user, pki.privateKey(user), clock);
  }
}
