package dev.portcullis.active.auth;

import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.fleet.FleetKci;
import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Backoff;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each code's current secret Kci at the Authorization Server: made, stored at the Code Server and
 * switched to at each rotation, or, for a replica of several, taken from the fleet's store ({@link
 * FleetKci}) while another replica's is younger than a rotation period.
 */
final class KciEpochs {
  private static final Logger log = LoggerFactory.getLogger(KciEpochs.class);

  /** A code's current secret: its epoch number and HKDF-Extract output. */
  record Epoch(int number, MacKey prk) {}

  private final RosaConfig config;
  private final SessionKdf kdf;
  private final CodeServerClient codeServer;
  private final Clock clock;
  private final FleetKci fleet; // null: this server alone
  private final SecureRandom random = new SecureRandom();
  private final Map<Integer, Epoch> current = new ConcurrentHashMap<>();

  KciEpochs(
      RosaConfig config, SessionKdf kdf, CodeServerClient codeServer, Clock clock, FleetKci fleet) {
    this.config = config;
    this.kdf = kdf;
    this.codeServer = codeServer;
    this.clock = clock;
    this.fleet = fleet;
  }

  /** The code's current epoch (there is one once the first rotation ran). */
  Epoch current(int codeId) {
    return current.get(codeId);
  }

  /** Wipes every current secret. */
  void destroy() {
    current.values().forEach(e -> e.prk().destroy());
  }

  /**
   * Makes a new secret for every code, stores it at the Code Server, then switches to it. A replica
   * takes the fleet's secret instead while it is younger than a rotation period, and shares the one
   * it makes.
   */
  synchronized void rotate() throws IOException, InterruptedException {
    for (RosaConfig.Code c : config.codes().values()) {
      if (fleet != null) {
        rotateShared(c);
        continue;
      }
      Epoch old = current.get(c.id());
      int number = (int) Math.max(clock.millis() / 1000, old == null ? 0 : old.number() + 1L);
      byte[] kci = new byte[32];
      random.nextBytes(kci);
      try {
        number = putWithRetry(c, number, kci);
        current.put(c.id(), new Epoch(number, kdf.prepare(kci)));
      } finally {
        Arrays.fill(kci, (byte) 0);
      }
      if (old != null) {
        old.prk().destroy(); // the Code Server keeps it for routers; here only new grants need one
      }
      log.info("code {}: Kci epoch {}", c.name(), Integer.toUnsignedString(number));
    }
  }

  private void rotateShared(RosaConfig.Code c) throws IOException, InterruptedException {
    try {
      Optional<FleetKci.Shared> shared = fleet.current(c.id());
      long now = clock.millis() / 1000;
      long period = Math.max(1, config.authServer().rotation().toSeconds());
      if (shared.isPresent() && now - Integer.toUnsignedLong(shared.get().epoch()) < period) {
        adopt(c, shared.get()); // a replica rotated within the period: share its secret
        return;
      }
      Epoch old = current.get(c.id());
      long floor =
          Math.max(
              shared.map(x -> Integer.toUnsignedLong(x.epoch()) + 1).orElse(0L),
              old == null ? 0 : Integer.toUnsignedLong(old.number()) + 1);
      int number = (int) Math.max(now, floor);
      byte[] kci = new byte[32];
      random.nextBytes(kci);
      try {
        number = putWithRetry(c, number, kci);
        if (fleet.publish(c.id(), number, kci, shared.map(FleetKci.Shared::version).orElse(-1))) {
          install(c, number, kci);
        } else {
          // another replica rotated first: its secret is the code's; ours stays unused
          adopt(c, fleet.current(c.id()).orElseThrow(() -> new IOException("shared Kci vanished")));
        }
      } finally {
        Arrays.fill(kci, (byte) 0);
      }
    } catch (StoreException e) {
      throw new IOException("shared Kci of code " + c.name() + ": " + e.getMessage(), e);
    }
  }

  /** Switches the code to the shared secret if it is not its current one; wipes it. */
  private void adopt(RosaConfig.Code c, FleetKci.Shared s) {
    try {
      Epoch now = current.get(c.id());
      if (now == null || now.number() != s.epoch()) {
        install(c, s.epoch(), s.kci());
      }
    } finally {
      Arrays.fill(s.kci(), (byte) 0);
    }
  }

  private void install(RosaConfig.Code c, int number, byte[] kci) {
    Epoch old = current.put(c.id(), new Epoch(number, kdf.prepare(kci)));
    if (old != null && old.number() != number) {
      old.prk().destroy();
    }
    log.info("code {}: Kci epoch {}", c.name(), Integer.toUnsignedString(number));
  }

  /** Another replica shared a new secret for {@code codeId}. */
  synchronized void adoptQuietly(int codeId) {
    for (RosaConfig.Code c : config.codes().values()) {
      if (c.id() == codeId) {
        try {
          fleet.current(codeId).ifPresent(s -> adopt(c, s));
        } catch (StoreException e) {
          log.warn("shared Kci of code {} not taken: {}", c.name(), e.getMessage());
        }
      }
    }
  }

  /**
   * Stores the secret under {@code epoch}, or under the next free epoch if the Code Server holds
   * that one already (a restart within the same second as the last rotation): returns the epoch.
   */
  private int putWithRetry(RosaConfig.Code c, int epoch, byte[] kci)
      throws IOException, InterruptedException {
    IOException last = null;
    Backoff backoff = new Backoff(Duration.ofMillis(250), Duration.ofSeconds(2));
    for (int attempt = 0; attempt < 20; attempt++) {
      try {
        codeServer.putSecret(c.id(), epoch, kci);
        return epoch;
      } catch (CodeServerClient.EpochTakenException e) {
        epoch++; // numbers only grow: an epoch is never reused with another secret
        last = e;
      } catch (IOException e) {
        last = e;
        Thread.sleep(backoff.nextDelayMillis());
      }
    }
    throw new IOException(
        "cannot store the secret of code " + c.name() + " at the Code Server: " + last.getMessage(),
        last);
  }
}
