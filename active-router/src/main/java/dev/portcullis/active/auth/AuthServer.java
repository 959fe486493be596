package dev.portcullis.active.auth;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsServer;
import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.config.RosaPki;
import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.net.Https;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import java.io.IOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
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
  private final Path auditFile;
  private final SecureRandom random = new SecureRandom();
  private final Map<Integer, Epoch> current = new ConcurrentHashMap<>();
  private final Cache<String, Boolean> nonces;
  private final Cache<String, Boolean> issued;
  private final ScheduledExecutorService rotation;
  private final HttpsServer server;

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
    this.config = config;
    this.pki = pki;
    this.registry = registry;
    this.kdf = new SessionKdf(registry);
    this.codeServer = codeServer;
    this.clock = clock;
    this.auditFile = auditFile;
    Duration skew = config.authServer().requestSkew();
    this.nonces =
        Caffeine.newBuilder().maximumSize(1_000_000).expireAfterWrite(skew.multipliedBy(2)).build();
    this.issued =
        Caffeine.newBuilder()
            .maximumSize(1_000_000)
            .expireAfterWrite(config.authServer().longestSession().plusMinutes(1))
            .build();
    if (auditFile.getParent() != null) {
      Files.createDirectories(auditFile.getParent());
    }
    rotate(); // every code has a secret at the Code Server before the first request
    Duration every = config.authServer().rotation();
    this.rotation =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "auth-server-rotation");
              t.setDaemon(true);
              return t;
            });
    rotation.scheduleAtFixedRate(
        this::rotateQuietly, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    this.server = Https.server(address, pki.serverContext(false), false, 4, "auth-server");
    server.createContext("/v1/sessions", this::handle);
    server.start();
    log.info(
        "authorization server on {}: {} codes, {} users, {} rules, Kci rotated every {}",
        address(),
        config.codes().size(),
        config.users().size(),
        config.rules().size(),
        every);
  }

  public InetSocketAddress address() {
    return server.getAddress();
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

  /** Makes a new secret for every code, stores it at the Code Server, then switches to it. */
  public synchronized void rotate() throws IOException, InterruptedException {
    for (RosaConfig.Code c : config.codes().values()) {
      Epoch old = current.get(c.id());
      int number = (int) Math.max(clock.millis() / 1000, old == null ? 0 : old.number() + 1L);
      byte[] kci = new byte[32];
      random.nextBytes(kci);
      try {
        putWithRetry(c, number, kci);
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

  private void putWithRetry(RosaConfig.Code c, int epoch, byte[] kci)
      throws IOException, InterruptedException {
    IOException last = null;
    for (int attempt = 0; attempt < 20; attempt++) {
      try {
        codeServer.putSecret(c.id(), epoch, kci);
        return;
      } catch (IOException e) {
        last = e;
        Thread.sleep(250);
      }
    }
    throw new IOException(
        "cannot store the secret of code " + c.name() + " at the Code Server: " + last.getMessage(),
        last);
  }

  private void handle(HttpExchange ex) throws IOException {
    byte[] body = null;
    String signature = null;
    String user = null;
    try {
      if (!ex.getRequestMethod().equals("POST")) {
        Https.error(ex, 405, "POST a signed session request");
        return;
      }
      body = Https.body(ex);
      signature = ex.getRequestHeaders().getFirst(SIGNATURE_HEADER);
      SessionRequest req;
      try {
        req = SessionRequest.parse(body);
      } catch (IllegalArgumentException e) {
        refuse(ex, 400, e.getMessage(), null, body, signature);
        return;
      }
      user = req.user();
      RosaConfig.User u = config.user(req.user());
      if (u == null || signature == null || !signatureValid(req.user(), body, signature)) {
        refuse(
            ex,
            401,
            "signature does not verify for user '" + req.user() + "'",
            user,
            body,
            signature);
        return;
      }
      long now = clock.millis() / 1000;
      long skew = config.authServer().requestSkew().toSeconds();
      if (Math.abs(now - req.time()) > skew) {
        refuse(
            ex,
            401,
            "request time " + req.time() + " is more than " + skew + " s from the server's " + now,
            user,
            body,
            signature);
        return;
      }
      if (nonces.asMap().putIfAbsent(req.user() + "/" + req.nonce(), Boolean.TRUE) != null) {
        refuse(ex, 401, "request replayed (nonce seen before)", user, body, signature);
        return;
      }
      String problem = checkRequest(req, now);
      if (problem != null) {
        refuse(
            ex,
            problem.startsWith("400 ") ? 400 : 403,
            problem.substring(4),
            user,
            body,
            signature);
        return;
      }
      SessionGrant grant = grant(req, u);
      String key = grant.flow() + "/" + grant.epoch() + "/" + grant.mac();
      if (issued.asMap().putIfAbsent(key, Boolean.TRUE) != null) {
        grant.destroy();
        refuse(
            ex,
            409,
            "this flow was already granted in this epoch; ask with another SST",
            user,
            body,
            signature);
        return;
      }
      audit("granted", grant.toString(), user, body, signature);
      log.info("granted {} to {}", grant, req.user());
      byte[] json = grant.toJson();
      grant.destroy();
      Https.send(ex, 200, "application/json", json);
      Arrays.fill(json, (byte) 0);
    } catch (RuntimeException e) {
      log.warn("auth server: request failed: {}", e.toString());
      Https.error(ex, 500, "internal error");
    }
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

  private void refuse(
      HttpExchange ex, int status, String why, String user, byte[] body, String signature)
      throws IOException {
    log.warn(
        "refused a session request of {}: {} ({})", user == null ? "(unread)" : user, why, status);
    audit("refused " + status, why, user, body, signature);
    Https.error(ex, status, why);
  }

  private synchronized void audit(
      String decision, String detail, String user, byte[] body, String signature) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("time", clock.instant().toString());
    line.put("decision", decision);
    line.put("detail", detail);
    line.put("user", user);
    line.put("request", body == null ? null : Base64.getEncoder().encodeToString(body));
    line.put("signature", signature);
    try (Writer w =
        Files.newBufferedWriter(
            auditFile,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND)) {
      w.write(Https.JSON.writeValueAsString(line));
      w.write('\n');
    } catch (IOException e) {
      log.error("cannot append to the audit file {}: {}", auditFile, e.getMessage());
    }
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    rotation.shutdownNow();
    current.values().forEach(e -> e.prk().destroy());
  }
}
