package dev.portcullis.active.code;

import com.fasterxml.jackson.databind.JsonNode;
import dev.portcullis.active.net.Https;
import dev.portcullis.active.verify.CodeSource;
import dev.portcullis.support.Numbers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Talks to the Code Server over mutually authenticated TLS, asynchronously: secrets and modules for
 * a router, new secrets from the Authorization Server.
 */
public final class CodeServerClient implements CodeSource {
  private final HttpClient http;
  private final URI base;

  /** A module as served, with the certificate of the server that served it (its signer). */
  public record Module(byte[] jar, Certificate server) {}

  public CodeServerClient(InetSocketAddress server, SSLContext context) {
    this.http =
        HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
    this.base =
        URI.create("https://" + server.getHostString() + ":" + server.getPort() + "/v1/codes/");
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10));
  }

  @Override
  public CompletableFuture<byte[]> secret(int code, int epoch) {
    return getJson(
        Integer.toUnsignedString(code) + "/secrets/" + Integer.toUnsignedString(epoch),
        "secret",
        n -> Base64.getDecoder().decode(n.get("kci").asText()));
  }

  /** The epochs whose secrets the Code Server holds for a code this router may run. */
  @Override
  public CompletableFuture<int[]> epochs(int code) {
    return getJson(
        Integer.toUnsignedString(code) + "/secrets",
        "epoch list",
        n -> {
          JsonNode list = n.get("epochs");
          int[] epochs = new int[list.size()];
          for (int i = 0; i < epochs.length; i++) {
            epochs[i] = Numbers.unsigned32(list.get(i).asLong(-1), "epoch");
          }
          return epochs;
        });
  }

  /** GETs a JSON answer and reads it; a refusal or an unreadable answer fails the future. */
  private <T> CompletableFuture<T> getJson(String path, String what, Function<JsonNode, T> read) {
    return http.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            r -> {
              if (r.statusCode() != 200) {
                throw new CompletionException(failure(r));
              }
              try {
                return read.apply(Https.JSON.readTree(r.body()));
              } catch (IOException | RuntimeException e) {
                throw new CompletionException(
                    new IOException("code server: unreadable " + what + " answer", e));
              }
            });
  }

  /** The module of a code, with the certificate of the server that served it. */
  public CompletableFuture<Module> module(int code) {
    String path = Integer.toUnsignedString(code) + "/module";
    return http.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofByteArray())
        .thenApply(
            r -> {
              if (r.statusCode() != 200) {
                throw new CompletionException(failure(r));
              }
              try {
                return new Module(
                    r.body(),
                    r.sslSession()
                        .orElseThrow(() -> new SSLPeerUnverifiedException("no TLS session"))
                        .getPeerCertificates()[0]);
              } catch (SSLPeerUnverifiedException e) {
                throw new CompletionException(e);
              }
            });
  }

  /** Stores a new secret (the Authorization Server's call); throws if refused. */
  public void putSecret(int code, int epoch, byte[] kci) throws IOException, InterruptedException {
    String path = Integer.toUnsignedString(code) + "/secrets/" + Integer.toUnsignedString(epoch);
    byte[] body =
        Https.JSON.writeValueAsBytes(Map.of("kci", Base64.getEncoder().encodeToString(kci)));
    HttpResponse<byte[]> r =
        http.send(
            request(path)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() == 409) {
      throw new EpochTakenException(failure(r).getMessage());
    }
    if (r.statusCode() != 204) {
      Exception e = failure(r);
      throw new IOException(e.getMessage(), e);
    }
  }

  /** The Code Server already holds another secret for that epoch: it never overwrites one. */
  public static final class EpochTakenException extends IOException {
    private static final long serialVersionUID = 1L;

    EpochTakenException(String message) {
      super(message);
    }
  }

  private static Exception failure(HttpResponse<byte[]> r) {
    String why = "code server answered " + r.statusCode() + ": " + Https.errorOf(r.body());
    return r.statusCode() == 404 || r.statusCode() == 403
        ? new UnknownCodeException(why)
        : new IOException(why);
  }
}
