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
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Threads;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
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
public final class AuthServer extends Lifecycle.Bound {

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
  private final KciEpochs epochs;
  private final Cache<String, Boolean> issued;
  private final ScheduledExecutorService rotation;
  private final HttpsEndpoint server;
  private final FleetKci fleet; // null: this server alone

  /**
   * Takes its audit file and nonce journal (beside it, {@code auth-nonces.jsonl}), binds {@code
   * address}, and only then rotates every code's Kci at the Code Server and starts answering.
   *
   * @param fleet what it shares with its replicas (Kci epochs, granted flows; owned and closed
   *     here), or null for a server alone
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
    this.epochs = new KciEpochs(config, kdf, codeServer, clock, fleet);
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
          fleet.watch(epochs::adoptQuietly); // another replica's rotation
        } catch (StoreException e) {
          throw new IOException("shared Kci: " + e.getMessage(), e);
        }
      }
      Duration every = config.authServer().rotation();
      timer = Threads.owner("auth-server-rotation");
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
    return epochs.current(config.codes().get(code).id()).number();
  }

  /**
   * Makes a new secret for every code, stores it at the Code Server, then switches to it (a replica
   * may take the fleet's instead: {@link KciEpochs#rotate}).
   */
  public void rotate() throws IOException, InterruptedException {
    epochs.rotate();
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
    KciEpochs.Epoch e = epochs.current(code.id());
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
    epochs.destroy();
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
    stoppedNow();
  }
}
