package dev.portcullis.active.code;

import com.fasterxml.jackson.databind.JsonNode;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.config.RosaPki;
import dev.portcullis.active.fleet.FleetKci;
import dev.portcullis.active.net.Https;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Numbers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Code Server: serves each code's signed module and its secrets Kci, over HTTPS with client
 * certificates, to the routers the configuration allows that code — and takes new secrets from the
 * Authorization Server only.
 *
 * <pre>{@code
 * GET /v1/codes/{Ci}/module           router allowed Ci  -> the signed jar
 * GET /v1/codes/{Ci}/secrets          router allowed Ci  -> {"epochs": [epoch, ...]} (kept now)
 * GET /v1/codes/{Ci}/secrets/{epoch}  router allowed Ci  -> {"kci": base64}
 * PUT /v1/codes/{Ci}/secrets/{epoch}  auth-server        <- {"kci": base64}
 * }</pre>
 */
public final class CodeServer extends Lifecycle.Bound {

  private static final Logger log = LoggerFactory.getLogger(CodeServer.class);
  private static final Pattern PATH =
      Pattern.compile("/v1/codes/([0-9]{1,20})/(module|secrets(?:/([0-9]{1,20}))?)");

  private final RosaConfig config;
  private final Map<Integer, byte[]> modules = new HashMap<>();
  private final Map<Integer, NavigableMap<Integer, byte[]>> secrets = new ConcurrentHashMap<>();
  private final HttpsEndpoint server;
  private final FleetKci fleet; // null: this Code Server alone

  /** Packs and signs every code's module, then listens on {@code address}. */
  public CodeServer(RosaConfig config, RosaPki pki, InetSocketAddress address, Path workDir)
      throws IOException {
    this(config, pki, address, workDir, HttpsEndpoint.Limits.DEFAULT);
  }

  /** As above, with the HTTPS server's limits. */
  public CodeServer(
      RosaConfig config,
      RosaPki pki,
      InetSocketAddress address,
      Path workDir,
      HttpsEndpoint.Limits limits)
      throws IOException {
    this(config, pki, address, workDir, limits, null);
  }

  /**
   * As above, one replica of several serving the same secrets: each epoch's Kci is kept, wrapped,
   * in the fleet's store ({@code fleet}, owned and closed by this server), so a router may ask any
   * replica for a secret another one was given.
   */
  public CodeServer(
      RosaConfig config,
      RosaPki pki,
      InetSocketAddress address,
      Path workDir,
      HttpsEndpoint.Limits limits,
      FleetKci fleet)
      throws IOException {
    this.config = config;
    this.fleet = fleet;
    dev.portcullis.support.OwnedFile.createMissing(workDir);
    ModuleSigner signer = new ModuleSigner(pki.serverKey(), pki.serverChain());
    for (RosaConfig.Code c : config.codes().values()) {
      modules.put(c.id(), signer.module(c.className(), workDir));
    }
    this.server =
        HttpsEndpoint.bind(
            address, pki.serverContext(true), true, "code server", limits, this::handle);
    server.start();
    log.info(
        "code server on {} serving {} signed modules: {}",
        address(),
        modules.size(),
        config.codes().keySet());
  }

  public InetSocketAddress address() {
    return server.address();
  }

  /** The epochs whose secret is kept for a code, oldest first (tools and tests). */
  public List<Integer> epochs(int code) {
    NavigableMap<Integer, byte[]> kept = secrets.get(code);
    return kept == null ? List.of() : List.copyOf(kept.keySet());
  }

  /** What the HTTPS server refused, by kind. */
  public HttpsEndpoint.Stats httpStats() {
    return server.stats();
  }

  /** A request path, its numbers range-checked: {@code /v1/codes/{Ci}/module|secrets/{epoch}}. */
  record Resource(int code, boolean module, boolean list, int epoch) {
    /**
     * @throws IllegalArgumentException naming the path or the number that is out of range
     */
    static Resource parse(String path) {
      Matcher m = PATH.matcher(path);
      if (!m.matches()) {
        throw new IllegalArgumentException("no such resource: " + path);
      }
      int code = Numbers.unsigned32(m.group(1), "code");
      boolean module = m.group(2).equals("module");
      boolean list = !module && m.group(3) == null;
      return new Resource(
          code, module, list, module || list ? 0 : Numbers.unsigned32(m.group(3), "epoch"));
    }
  }

  private HttpsEndpoint.Response handle(HttpsEndpoint.Request ex) {
    String peer = ex.peerName();
    Resource r;
    try {
      r = Resource.parse(ex.path());
    } catch (IllegalArgumentException e) {
      return HttpsEndpoint.Response.error(404, e.getMessage());
    }
    RosaConfig.Code c = config.code(r.code());
    if (c == null) {
      return HttpsEndpoint.Response.error(404, "no code " + Integer.toUnsignedString(r.code()));
    }
    if (ex.method().equals("PUT")) {
      if (!RosaConfig.AUTH_SERVER_IDENTITY.equals(peer) || r.module() || r.list()) {
        log.warn("code server: {} may not store secrets", peer);
        return HttpsEndpoint.Response.error(403, "only the Authorization Server stores secrets");
      }
      return store(ex.body(), c, r.epoch());
    }
    if (!ex.method().equals("GET")) {
      return HttpsEndpoint.Response.error(405, "GET a module or secret, PUT a secret");
    }
    RosaConfig.Router router = config.routers().get(peer);
    if (router == null || !router.codes().contains(c.name())) {
      log.warn("code server: refused code {} to {} (not allowed it)", c.name(), peer);
      return HttpsEndpoint.Response.error(403, peer + " is not allowed code " + c.name());
    }
    if (r.module()) {
      return new HttpsEndpoint.Response(200, "application/java-archive", modules.get(r.code()));
    }
    if (r.list()) {
      List<Integer> list;
      try {
        list = fleet == null ? epochs(r.code()) : newest(fleet.epochs(r.code()));
      } catch (StoreException e) {
        return unreachable(e);
      }
      return HttpsEndpoint.Response.json(
          200, Map.of("epochs", list.stream().map(Integer::toUnsignedLong).toList()));
    }
    NavigableMap<Integer, byte[]> kept = secrets.get(r.code());
    byte[] kci = kept == null ? null : kept.get(r.epoch());
    if (kci == null && fleet != null) {
      try {
        kci = fleet.epoch(r.code(), r.epoch()).orElse(null); // given to another replica
      } catch (StoreException e) {
        return unreachable(e);
      }
      if (kci != null) {
        keep(c, r.epoch(), kci);
      }
    }
    if (kci == null) {
      return HttpsEndpoint.Response.error(
          404, "no secret for code " + c.name() + " epoch " + Integer.toUnsignedString(r.epoch()));
    }
    log.debug("code server: secret of {} epoch {} to {}", c.name(), r.epoch(), peer);
    return HttpsEndpoint.Response.json(200, Map.of("kci", Base64.getEncoder().encodeToString(kci)));
  }

  private HttpsEndpoint.Response store(byte[] body, RosaConfig.Code c, int epoch) {
    byte[] kci;
    try {
      JsonNode n = Https.JSON.readTree(body);
      kci = Base64.getDecoder().decode(n.get("kci").asText());
    } catch (IOException | RuntimeException e) {
      return HttpsEndpoint.Response.error(400, "body must be {\"kci\": base64}");
    }
    if (kci.length < 32) {
      return HttpsEndpoint.Response.error(
          400, "kci: " + kci.length + " bytes (expected at least 32)");
    }
    if (fleet != null) {
      try {
        if (!fleet.putEpoch(c.id(), epoch, kci)) { // an epoch has one secret, fleet-wide
          return HttpsEndpoint.Response.error(
              409, "epoch " + Integer.toUnsignedString(epoch) + " already has a secret");
        }
        fleet.keepNewest(c.id(), config.authServer().epochsKept());
      } catch (StoreException e) {
        return unreachable(e);
      }
    }
    int n = keep(c, epoch, kci);
    if (n < 0) {
      return HttpsEndpoint.Response.error(
          409, "epoch " + Integer.toUnsignedString(epoch) + " already has a secret");
    }
    log.info(
        "code server: new secret for {} epoch {} ({} kept)",
        c.name(),
        Integer.toUnsignedString(epoch),
        n);
    return new HttpsEndpoint.Response(204, "application/json", new byte[0]);
  }

  /** Keeps a secret here; the number kept, or -1 if the epoch has another one. */
  private int keep(RosaConfig.Code c, int epoch, byte[] kci) {
    NavigableMap<Integer, byte[]> kept =
        secrets.computeIfAbsent(c.id(), k -> new ConcurrentSkipListMap<>(Integer::compareUnsigned));
    synchronized (kept) {
      byte[] prior = kept.get(epoch);
      if (prior != null && !Arrays.equals(prior, kci)) {
        return -1;
      }
      kept.put(epoch, kci);
      while (kept.size() > config.authServer().epochsKept()) {
        Arrays.fill(kept.pollFirstEntry().getValue(), (byte) 0);
      }
      return kept.size();
    }
  }

  private List<Integer> newest(List<Integer> epochs) {
    int kept = config.authServer().epochsKept();
    return epochs.size() <= kept ? epochs : epochs.subList(epochs.size() - kept, epochs.size());
  }

  private static HttpsEndpoint.Response unreachable(StoreException e) {
    log.warn("code server: the fleet's store: {}", e.getMessage());
    return HttpsEndpoint.Response.error(503, "the code servers' shared state is unreachable");
  }

  @Override
  public void close() {
    server.close();
    if (fleet != null) {
      fleet.close();
    }
    for (NavigableMap<Integer, byte[]> kept : secrets.values()) {
      kept.values().forEach(k -> Arrays.fill(k, (byte) 0));
    }
    stoppedNow();
  }
}
