package dev.portcullis.active.code;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsServer;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.config.RosaPki;
import dev.portcullis.active.net.Https;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
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
 * <pre>
 * GET /v1/codes/{Ci}/module           router allowed Ci  -> the signed jar
 * GET /v1/codes/{Ci}/secrets/{epoch}  router allowed Ci  -> {"kci": base64}
 * PUT /v1/codes/{Ci}/secrets/{epoch}  auth-server        <- {"kci": base64}
 * </pre>
 */
public final class CodeServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CodeServer.class);
  private static final Pattern PATH =
      Pattern.compile("/v1/codes/([0-9]{1,10})/(module|secrets/([0-9]{1,10}))");

  private final RosaConfig config;
  private final Map<Integer, byte[]> modules = new HashMap<>();
  private final Map<Integer, NavigableMap<Integer, byte[]>> secrets = new ConcurrentHashMap<>();
  private final HttpsServer server;

  /** Packs and signs every code's module, then listens on {@code address}. */
  public CodeServer(RosaConfig config, RosaPki pki, InetSocketAddress address, Path workDir)
      throws IOException {
    this.config = config;
    Files.createDirectories(workDir);
    ModuleSigner signer = new ModuleSigner(pki.serverKey(), pki.serverChain());
    for (RosaConfig.Code c : config.codes().values()) {
      modules.put(c.id(), signer.module(c.className(), workDir));
    }
    this.server = Https.server(address, pki.serverContext(true), true, 4, "code-server");
    server.createContext("/v1/codes/", this::handle);
    server.start();
    log.info(
        "code server on {} serving {} signed modules: {}",
        address(),
        modules.size(),
        config.codes().keySet());
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      String peer = Https.peerName(ex);
      Matcher m = PATH.matcher(ex.getRequestURI().getPath());
      if (!m.matches()) {
        Https.error(ex, 404, "no such resource: " + ex.getRequestURI().getPath());
        return;
      }
      int code = (int) Long.parseLong(m.group(1));
      RosaConfig.Code c = config.code(code);
      if (c == null) {
        Https.error(ex, 404, "no code " + Integer.toUnsignedString(code));
        return;
      }
      boolean put = ex.getRequestMethod().equals("PUT");
      if (put) {
        if (!RosaConfig.AUTH_SERVER_IDENTITY.equals(peer) || m.group(3) == null) {
          log.warn("code server: {} may not store secrets", peer);
          Https.error(ex, 403, "only the Authorization Server stores secrets");
          return;
        }
        store(ex, c, (int) Long.parseLong(m.group(3)));
        return;
      }
      RosaConfig.Router router = config.routers().get(peer);
      if (router == null || !router.codes().contains(c.name())) {
        log.warn("code server: refused code {} to {} (not allowed it)", c.name(), peer);
        Https.error(ex, 403, peer + " is not allowed code " + c.name());
        return;
      }
      if (m.group(3) == null) {
        Https.send(ex, 200, "application/java-archive", modules.get(code));
        return;
      }
      int epoch = (int) Long.parseLong(m.group(3));
      NavigableMap<Integer, byte[]> kept = secrets.get(code);
      byte[] kci = kept == null ? null : kept.get(epoch);
      if (kci == null) {
        Https.error(
            ex,
            404,
            "no secret for code " + c.name() + " epoch " + Integer.toUnsignedString(epoch));
        return;
      }
      log.debug("code server: secret of {} epoch {} to {}", c.name(), epoch, peer);
      Https.json(ex, 200, Map.of("kci", Base64.getEncoder().encodeToString(kci)));
    } catch (RuntimeException e) {
      log.warn("code server: request {} failed: {}", ex.getRequestURI(), e.toString());
      Https.error(ex, 500, "internal error");
    }
  }

  private void store(HttpExchange ex, RosaConfig.Code c, int epoch) throws IOException {
    JsonNode n;
    byte[] kci;
    try {
      n = Https.JSON.readTree(Https.body(ex));
      kci = Base64.getDecoder().decode(n.get("kci").asText());
    } catch (IOException | RuntimeException e) {
      Https.error(ex, 400, "body must be {\"kci\": base64}");
      return;
    }
    if (kci.length < 32) {
      Https.error(ex, 400, "kci: " + kci.length + " bytes (expected at least 32)");
      return;
    }
    NavigableMap<Integer, byte[]> kept =
        secrets.computeIfAbsent(c.id(), k -> new ConcurrentSkipListMap<>(Integer::compareUnsigned));
    synchronized (kept) {
      byte[] prior = kept.get(epoch);
      if (prior != null && !Arrays.equals(prior, kci)) {
        Https.error(ex, 409, "epoch " + Integer.toUnsignedString(epoch) + " already has a secret");
        return;
      }
      kept.put(epoch, kci);
      while (kept.size() > config.authServer().epochsKept()) {
        Arrays.fill(kept.pollFirstEntry().getValue(), (byte) 0);
      }
    }
    log.info(
        "code server: new secret for {} epoch {} ({} kept)",
        c.name(),
        Integer.toUnsignedString(epoch),
        kept.size());
    Https.send(ex, 204, "application/json", new byte[0]);
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    for (NavigableMap<Integer, byte[]> kept : secrets.values()) {
      kept.values().forEach(k -> Arrays.fill(k, (byte) 0));
    }
  }
}
