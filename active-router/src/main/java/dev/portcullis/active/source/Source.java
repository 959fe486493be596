package dev.portcullis.active.source;

import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.auth.SessionRequest;
import dev.portcullis.active.net.Https;
import dev.portcullis.active.packet.MacAlgorithm;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import javax.net.ssl.SSLContext;

/**
 * A user's side of ROSA: asks the Authorization Server for a session with a request signed by the
 * user's private key, and gets the grant whose sealer protects the packets it then sends.
 */
public final class Source {
  private final HttpClient http;
  private final URI sessions;
  private final String user;
  private final PrivateKey key;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  /** The Authorization Server said no; {@link #status} is its HTTP status. */
  public static final class RefusedException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;

    RefusedException(int status, String message) {
      super(message);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  /**
   * @param context TLS context that trusts the Authorization Server's CA
   */
  public Source(
      InetSocketAddress authServer, SSLContext context, String user, PrivateKey key, Clock clock) {
    this.http =
        HttpClient.newBuilder().sslContext(context).connectTimeout(Duration.ofSeconds(5)).build();
    this.sessions =
        URI.create(
            "https://" + authServer.getHostString() + ":" + authServer.getPort() + "/v1/sessions");
    this.user = user;
    this.key = key;
    this.clock = clock;
  }

  /** Asks for a session; SST and SET in Unix seconds. */
  public SessionGrant request(
      String code,
      String source,
      String destination,
      long sst,
      long set,
      MacAlgorithm mac,
      boolean encrypt)
      throws IOException, InterruptedException {
    byte[] nonce = new byte[16];
    random.nextBytes(nonce);
    SessionRequest req =
        new SessionRequest(
            user,
            code,
            source,
            destination,
            sst,
            set,
            mac.label,
            encrypt,
            clock.millis() / 1000,
            Base64.getEncoder().encodeToString(nonce));
    return send(req.toJson(), sign(req.toJson()));
  }

  /** Signs request bytes with the user's key (exposed so tests can forge and replay). */
  public String sign(byte[] body) {
    try {
      Signature s = Signature.getInstance(AuthServer.SIGNATURE_ALGORITHM);
      s.initSign(key);
      s.update(body);
      return Base64.getEncoder().encodeToString(s.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign with the user's key: " + e.getMessage(), e);
    }
  }

  /** Sends request bytes with a signature; the grant, or {@link RefusedException}. */
  public SessionGrant send(byte[] body, String signature) throws IOException, InterruptedException {
    HttpResponse<byte[]> r =
        http.send(
            HttpRequest.newBuilder(sessions)
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .header(AuthServer.SIGNATURE_HEADER, signature)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new RefusedException(
          r.statusCode(),
          "authorization server refused (" + r.statusCode() + "): " + Https.errorOf(r.body()));
    }
    byte[] json = r.body();
    try {
      return SessionGrant.parse(json);
    } finally {
      Arrays.fill(json, (byte) 0);
    }
  }
}
