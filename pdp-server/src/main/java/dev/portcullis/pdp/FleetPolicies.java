package dev.portcullis.pdp;

import static dev.portcullis.cops.ClientTypes.hex;

import dev.portcullis.state.StateStore;
import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.StorePaths;
import dev.portcullis.state.Versioned;
import dev.portcullis.support.ConfigException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Policy versions shared by a fleet: one published policy per client type, {@code
 * /policy/versions/TYPE} (the file's bytes; the entry's version is the policy's version), which
 * every member loads, and {@code /policy/members/TYPE/MEMBER} (leased) where each member says which
 * version it runs or why it refused one. Publishing is a compare-and-set on the entry: of two
 * members publishing at once, both versions are published in turn and every member ends on the same
 * last one.
 */
public final class FleetPolicies implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FleetPolicies.class);
  static final String VERSIONS = "/policy/versions";
  static final String MEMBERS = "/policy/members";

  /** Loads a published version into the running PDP and pushes what changed. */
  interface Applier {
    void apply(int clientType, byte[] policy, int version) throws ConfigException;
  }

  private final StateStore store;
  private final String member;
  private final Map<Integer, ClientTypePolicy> policies;
  private final Applier applier;
  private StateStore.Subscription watch;

  FleetPolicies(
      StateStore store, String member, Map<Integer, ClientTypePolicy> policies, Applier applier) {
    this.store = store;
    this.member = StorePaths.segment(member);
    this.policies = policies;
    this.applier = applier;
  }

  static String type(int clientType) {
    return String.format(Locale.ROOT, "%04x", clientType);
  }

  /**
   * Publishes what this member runs for each client type nobody has published yet, then follows the
   * published versions.
   */
  void start() throws StoreException {
    for (ClientTypePolicy p : policies.values()) {
      byte[] running = p.running();
      if (running != null
          && store.create(VERSIONS + "/" + type(p.clientType), running, Lifetime.DURABLE)) {
        log.info(
            "fleet policy for client type {}: this PDP's published as version 0",
            hex(p.clientType));
      }
    }
    watch = store.watch(VERSIONS, this::changed);
  }

  private void changed(StoreEvent e) {
    if (e.kind() != StoreEvent.Kind.PUT) {
      return;
    }
    String name = e.path().substring(VERSIONS.length() + 1);
    int clientType;
    try {
      clientType = Integer.parseInt(name, 16);
    } catch (NumberFormatException x) {
      return;
    }
    ClientTypePolicy p = policies.get(clientType);
    if (p == null) {
      return; // a client type another member serves
    }
    Versioned v = e.value();
    String status;
    if (Arrays.equals(v.data(), p.running())) {
      status = "v" + v.version() + " running";
    } else {
      try {
        applier.apply(clientType, v.data(), v.version());
        status = "v" + v.version() + " running";
      } catch (ConfigException x) {
        status = "v" + v.version() + " refused here: " + x.getMessage();
      } catch (RuntimeException x) {
        status = "v" + v.version() + " refused here: " + x;
      }
    }
    report(clientType, status);
  }

  private void report(int clientType, String status) {
    String path = MEMBERS + "/" + type(clientType) + "/" + member;
    byte[] b = status.getBytes(StandardCharsets.UTF_8);
    try {
      Optional<Versioned> now = store.read(path);
      if (now.isEmpty()
          ? !store.create(path, b, Lifetime.LEASED)
          : !store.replace(path, b, now.get().version())) {
        log.debug("fleet policy status for {} raced; the next change reports again", path);
      }
    } catch (StoreException x) {
      log.warn("fleet policy status not recorded: {}", x.getMessage());
    }
  }

  /**
   * Publishes {@code policy} as the next version for {@code clientType}; the version, or the
   * current one when it is that policy already.
   */
  public static int publish(StateStore store, int clientType, byte[] policy) throws StoreException {
    String path = VERSIONS + "/" + type(clientType);
    for (int attempt = 0; attempt < 20; attempt++) {
      Optional<Versioned> now = store.readLatest(path);
      if (now.isEmpty()) {
        if (store.create(path, policy, Lifetime.DURABLE)) {
          return 0;
        }
      } else if (Arrays.equals(now.get().data(), policy)) {
        return now.get().version();
      } else if (store.replace(path, policy, now.get().version())) {
        return now.get().version() + 1;
      }
    }
    throw new StoreException(path + ": 20 concurrent publications in a row; try again");
  }

  /** The fleet's view: per client type, the published version and each member's status. */
  public static Map<String, List<String>> status(StateStore store) throws StoreException {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (String t : store.children(VERSIONS)) {
      Optional<Versioned> v = store.readLatest(VERSIONS + "/" + t);
      List<String> lines = new ArrayList<>();
      lines.add(
          "published: "
              + v.map(x -> "v" + x.version() + ", " + x.data().length + " bytes").orElse("none"));
      for (String m : store.children(MEMBERS + "/" + t)) {
        Optional<Versioned> s = store.read(MEMBERS + "/" + t + "/" + m);
        s.ifPresent(x -> lines.add(m + ": " + new String(x.data(), StandardCharsets.UTF_8)));
      }
      out.put("0x" + t.toUpperCase(Locale.ROOT), lines);
    }
    return out;
  }

  /** Publishes what this member now runs for {@code clientType} (a local reload). */
  void publishLocal(int clientType) {
    ClientTypePolicy p = policies.get(clientType);
    byte[] running = p == null ? null : p.running();
    if (running == null) {
      return;
    }
    try {
      int v = publish(store, clientType, running);
      log.info("fleet policy for client type {}: published as version {}", hex(clientType), v);
    } catch (StoreException e) {
      log.warn(
          "fleet policy for client type {} not published (the fleet keeps its version): {}",
          hex(clientType),
          e.getMessage());
    }
  }

  @Override
  public void close() {
    if (watch != null) {
      watch.close();
    }
  }
}
