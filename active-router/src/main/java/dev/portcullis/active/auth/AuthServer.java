package dev.portcullis.active.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.config.RosaPki;
import dev.portcullis.active.fleet.FleetKci;
import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Backoff;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Authorization Server: checks a user's signed service request against the authorization rules,
 * derives the session keys with the current Kci of the code and returns them over TLS. It makes
 * every code's secret, replaces it every {@code rotation}, and stores each new one at the Code
 * Server (mutual TLS) before using it. Every decision is appended to an audit file with the signed
 * request, so a grant can be held against the user who asked for it.
 *
 * <p>{@code POST /v1/sessions}: a {@link SessionRequest} with its {@code Portcullis-Signature};
 * answers 200 with the grant, 400 (malformed, naming the field), 401 (signature), 403 (no rule
 * allows it, saying which rule refused what), 409 (the flow was already granted in this epoch).
 */
public final class AuthServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AuthServer.class);
  public static final String SIGNATURE_HEADER = "Portcullis-Signature";
  public static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";

  private final RosaConfig config;
  private final RosaPki pki;
  private final CryptoRegistry registry;
  private final SessionKdf kdf;
  private final CodeServerClient codeServer;
  private final Clock clock;
  private final AuthAudit audit;
  private final NonceJournal nonces;
  private final SecureRandom random = new SecureRandom();
  private final Map<Integer, Epoch> current = new ConcurrentHashMap<>();
  private final Cache<String, Boolean> issued;
  private final ScheduledExecutorService rotation;
  private final HttpsEndpoint server;
  private final FleetKci fleet; // null: this server alone

  /** A code's current secret: its epoch number and HKDF-Extract output. */
  private record Epoch(int number, MacKey prk) {}

  public AuthServer(
      RosaConfig config,
      RosaPki pki,
      CryptoRegistry registry,
      CodeServerClient codeServer,
      Clock clock,
      InetSocketAddress address,
      Path auditFile)
      throws IOException, InterruptedException {
    this(
        config, pki, registry, codeServer, clock, address, auditFile, HttpsEndpoint.Limits.DEFAULT);
  }

  /**
   * Takes its audit file and nonce journal (beside it, {@code auth-nonces.jsonl}), binds {@code
   * address}, and only then rotates every code's Kci at the Code Server and starts answering.
   */
  public AuthServer(
      RosaConfig config,
      RosaPki pki,
      CryptoRegistry registry,
      CodeServerClient codeServer,
      Clock clock,
      InetSocketAddress address,
      Path auditFile,
      HttpsEndpoint.Limits limits)
      throws IOException, InterruptedException {
    this(config, pki, registry, codeServer, clock, address, auditFile, limits, null);
  }

  /**
   * As above, one replica of several sharing Kci epochs and granted flows through {@code fleet}
   * (which it owns and closes), or alone when {@code fleet} is null.
   */
  public AuthServer(
      RosaConfig config,
      RosaPki pki,
      CryptoRegistry registry,
      CodeServerClient codeServer,
      Clock clock,
      InetSocketAddress address,
      Path auditFile,
      HttpsEndpoint.Limits limits,
      FleetKci fleet)
      throws IOException, InterruptedException {
    this.config = config;
    this.fleet = fleet;
    this.pki = pki;
    this.registry = registry;
    this.kdf = new SessionKdf(registry);
    this.codeServer = codeServer;
    this.clock = clock;
    Duration skew = config.authServer().requestSkew();
    this.issued =
        Caffeine.newBuilder()
            .maximumSize(1_000_000)
            .expireAfterWrite(config.authServer().longestSession().plusMinutes(1))
            .build();
    // In this order, so that a start that fails changes nothing shared: take the files, bind the
    // port, and only then rotate Kci at the Code Server and accept requests.
    this.audit = new AuthAudit(auditFile, clock);
    HttpsEndpoint bound = null;
    NonceJournal journal = null;
    ScheduledExecutorService timer = null;
    try {
      journal =
          new NonceJournal(
              audit.file().resolveSibling("auth-nonces.jsonl"), clock.millis() / 1000, 1_000_000);
      // Client certificates are required: key material goes only to the user who signed.
      bound =
          HttpsEndpoint.bind(
              address, pki.serverContext(true), true, "authorization server", limits, this::handle);
      this.nonces = journal;
      this.server = bound;
      rotate(); // every code has a secret at the Code Server before the first request
      if (fleet != null) {
        try {
          fleet.watch(this::adoptQuietly); // another replica's rotation
        } catch (StoreException e) {
          throw new IOException("shared Kci: " + e.getMessage(), e);
        }
      }
      Duration every = config.authServer().rotation();
      timer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "auth-server-rotation");
                t.setDaemon(true);
                return t;
              });
      this.rotation = timer;
      rotation.scheduleAtFixedRate(
          this::rotateQuietly, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
      rotation.scheduleAtFixedRate(this::housekeeping, 60, 60, TimeUnit.SECONDS);
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (timer != null) {
        timer.shutdownNow();
      }
      if (fleet != null) {
        fleet.close();
      }
      if (bound != null) {
        bound.close();
      }
      if (journal != null) {
        journal.close();
      }
      audit.close();
      throw e;
    }
    server.start();
    log.info(
        "authorization server on {}: {} codes, {} users, {} rules, Kci rotated every {}",
        address(),
        config.codes().size(),
        config.users().size(),
        config.rules().size(),
        config.authServer().rotation());
  }

  public InetSocketAddress address() {
    return server.address();
  }

  /** What the HTTPS server refused, by kind. */
  public HttpsEndpoint.Stats httpStats() {
    return server.stats();
  }

  /** Requests refused before their sender was authenticated, by reason. */
  public Map<String, Long> unauthenticatedRefusals() {
    return audit.unauthenticated();
  }

  /** Once a minute: the refusal summary into the log and the audit file; old nonces forgotten. */
  private void housekeeping() {
    try {
      audit.summarise();
      long now = clock.millis() / 1000;
      nonces.expire(now);
      if (fleet != null) {
        // flows of epochs no session can still use are forgotten fleet-wide
        long oldest =
            now
                - config.authServer().rotation().toSeconds() * config.authServer().epochsKept()
                - config.authServer().requestSkew().toSeconds();
        for (RosaConfig.Code c : config.codes().values()) {
          fleet.forgetBefore(c.id(), (int) Math.max(0, oldest));
        }
      }
    } catch (StoreException e) {
      log.warn("auth server housekeeping: shared flow records: {}", e.getMessage());
    } catch (RuntimeException e) {
      log.warn("auth server housekeeping: {}", e.toString());
    }
  }

  /** The current epoch of a code (tests and tools). */
  public int epoch(String code) {
    return current.get(config.codes().get(code).id()).number();
  }

  private void rotateQuietly() {
    try {
      rotate();
    } catch (IOException e) {
      log.error("Kci rotation failed, current secrets kept: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Makes a new secret for every code, stores it at the Code Server, then switches to it. A replica
   * takes the fleet's secret instead while it is younger than a rotation period, and shares the one
   * it makes.
   */
  public synchronized void rotate() throws IOException, InterruptedException {
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
  private synchronized void adoptQuietly(int codeId) {
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

  private HttpsEndpoint.Response handle(HttpsEndpoint.Request ex) throws IOException {
    if (!audit.healthy()) {
      return HttpsEndpoint.Response.error(503, "the authorization server cannot audit");
    }
    if (!ex.method().equals("POST") || !ex.path().equals("/v1/sessions")) {
      return audit.refuseUnauthenticated(
          "not POST /v1/sessions", 405, "POST a signed session request");
    }
    byte[] body = ex.body();
    String signature = ex.header(SIGNATURE_HEADER);
    SessionRequest req;
    try {
      req = SessionRequest.parse(body);
    } catch (IllegalArgumentException e) {
      return audit.refuseUnauthenticated("malformed", 400, AuthAudit.shown(e.getMessage()));
    }
    String user = req.user();
    RosaConfig.User u = config.user(user);
    if (u == null || signature == null || !signatureValid(user, body, signature)) {
      return audit.refuseUnauthenticated(
          "bad signature",
          401,
          "signature does not verify for user '" + AuthAudit.shown(user) + "'");
    }
    String presenter = ex.peerName();
    if (!user.equals(presenter)) {
      // A valid signature shown by someone else: a copied request (from the audit file, say).
      return audit.refuse(
          401,
          "the request is signed by '"
              + user
              + "' but the TLS client certificate is "
              + (presenter == null ? "missing" : "'" + presenter + "'")
              + "; keys go only to the signer",
          user,
          null,
          null);
    }
    long now = clock.millis() / 1000;
    long skew = config.authServer().requestSkew().toSeconds();
    if (Math.abs(now - req.time()) > skew) {
      return audit.refuse(
          401,
          "request time " + req.time() + " is more than " + skew + " s from the server's " + now,
          user,
          body,
          signature);
    }
    switch (nonces.add(user + "/" + req.nonce(), req.time() + skew)) {
      case SEEN:
        return audit.refuse(401, "request replayed (nonce seen before)", user, body, signature);
      case FULL:
        return audit.refuse(503, "too many requests in the validity window", user, null, null);
      default:
        break;
    }
    String problem = checkRequest(req, now);
    if (problem != null) {
      return audit.refuse(
          problem.startsWith("400 ") ? 400 : 403, problem.substring(4), user, body, signature);
    }
    SessionGrant grant = grant(req, u);
    String key = grant.flow() + "/" + grant.epoch() + "/" + grant.mac();
    boolean again = issued.asMap().putIfAbsent(key, Boolean.TRUE) != null;
    if (!again && fleet != null) {
      try {
        again = !fleet.grantOnce(config.codes().get(req.code()).id(), grant.epoch(), key);
      } catch (StoreException e) {
        grant.destroy();
        issued.invalidate(key);
        log.warn("shared flow records unreachable, refusing grants: {}", e.getMessage());
        return HttpsEndpoint.Response.error(
            503, "the authorization servers' shared state is unreachable; try again");
      }
    }
    if (again) {
      grant.destroy();
      return audit.refuse(
          409,
          "this flow was already granted in this epoch; ask with another SST",
          user,
          body,
          signature);
    }
    if (!audit.record("granted", grant.toString(), user, body, signature)) {
      grant.destroy();
      return HttpsEndpoint.Response.error(503, "the authorization server cannot audit");
    }
    log.info("granted {} to {}", grant, user);
    byte[] json = grant.toJson();
    grant.destroy();
    return new HttpsEndpoint.Response(200, "application/json", json);
  }

  private boolean signatureValid(String user, byte[] body, String signature) {
    try {
      X509Certificate cert = pki.certificate(user);
      cert.checkValidity();
      cert.verify(pki.caCertificate().getPublicKey());
      Signature s = Signature.getInstance(SIGNATURE_ALGORITHM);
      s.initVerify(cert.getPublicKey());
      s.update(body);
      return s.verify(Base64.getDecoder().decode(signature));
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      log.debug("signature of {} not verified: {}", user, e.toString());
      return false;
    }
  }

  /** Null if a rule allows the request, else "400 why" or "403 why". */
  private String checkRequest(SessionRequest req, long now) {
    RosaConfig.Code code = config.codes().get(req.code());
    if (code == null) {
      return "400 no code '" + req.code() + "'";
    }
    InetAddress src;
    InetAddress dst;
    try {
      src = literal(req.source(), "source");
      dst = literal(req.destination(), "destination");
    } catch (IllegalArgumentException e) {
      return "400 " + e.getMessage();
    }
    MacAlgorithm mac;
    try {
      mac = MacAlgorithm.ofLabel(req.mac());
    } catch (IllegalArgumentException e) {
      return "400 " + e.getMessage();
    }
    if (req.set() < req.sst()) {
      return "400 SET " + req.set() + " is before SST " + req.sst();
    }
    if (req.set() <= now) {
      return "400 SET " + req.set() + " has passed (now " + now + ")";
    }
    long longest = config.authServer().longestSession().toSeconds();
    if (req.set() - now > longest) {
      return "403 SET is more than " + longest + " s ahead, longer than Kci epochs are kept";
    }
    String why = "no rule lets " + req.user() + " run " + req.code();
    for (RosaConfig.Rule r : config.rules()) {
      if (!(r.user().equals("*") || r.user().equals(req.user()))
          || !(r.code().equals("*") || r.code().equals(req.code()))) {
        continue;
      }
      String at = "rule at line " + r.line() + ": ";
      if (!r.source().contains(src)) {
        why = at + "source " + req.source() + " not in " + r.source();
      } else if (!r.destination().contains(dst)) {
        why = at + "destination " + req.destination() + " not in " + r.destination();
      } else if (req.set() - req.sst() > r.maxDuration().toSeconds()) {
        why = at + "sessions last at most " + r.maxDuration();
      } else if (!r.macs().contains(mac)) {
        why = at + mac.label + " not allowed";
      } else if (r.encryption() == RosaConfig.Encryption.REQUIRED && !req.encrypt()) {
        why = at + "payload encryption required";
      } else if (r.encryption() == RosaConfig.Encryption.FORBIDDEN && req.encrypt()) {
        why = at + "payload encryption not allowed";
      } else {
        return null;
      }
    }
    return "403 " + why;
  }

  private static InetAddress literal(String s, String field) {
    if (!s.matches("[0-9A-Fa-f:.]+")) {
      throw new IllegalArgumentException(field + " '" + s + "' is not a literal IP address");
    }
    try {
      return InetAddress.getByName(s);
    } catch (IOException e) {
      throw new IllegalArgumentException(field + " '" + s + "' is not an IP address");
    }
  }

  private SessionGrant grant(SessionRequest req, RosaConfig.User u) {
    RosaConfig.Code code = config.codes().get(req.code());
    Epoch e = current.get(code.id());
    Flow flow =
        new Flow(
            u.id(),
            req.sst(),
            req.set(),
            literal(req.source(), "source"),
            literal(req.destination(), "destination"),
            code.id());
    MacAlgorithm mac = MacAlgorithm.ofLabel(req.mac());
    byte[] mk = kdf.macKey(e.prk(), flow, mac);
    byte[] ek = req.encrypt() ? kdf.encryptionKey(e.prk(), flow) : null;
    try {
      return new SessionGrant(flow, e.number(), mac, mk, ek);
    } finally {
      Arrays.fill(mk, (byte) 0);
      if (ek != null) {
        Arrays.fill(ek, (byte) 0);
      }
    }
  }

  @Override
  public void close() {
    server.close();
    rotation.shutdownNow();
    housekeeping();
    current.values().forEach(e -> e.prk().destroy());
    if (fleet != null) {
      fleet.close();
    }
    try {
      nonces.close();
    } catch (IOException e) {
      log.warn("nonce journal: {}", e.toString());
    }
    try {
      audit.close();
    } catch (IOException e) {
      log.warn("audit log {}: {}", audit.file(), e.toString());
    }
  }
}
