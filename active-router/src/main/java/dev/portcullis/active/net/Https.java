package dev.portcullis.active.net;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The small HTTPS plumbing the Authorization Server and the Code Server share: the JDK's HTTPS
 * server with TLS 1.3 (client certificates required or not), JSON bodies, bounded request sizes,
 * and the peer's certificate name.
 */
public final class Https {
  public static final ObjectMapper JSON = new ObjectMapper();

  /** Longest request body accepted. */
  public static final int MAX_BODY = 64 * 1024;

  private Https() {}

  /**
   * An HTTPS server on {@code address}; with {@code clientAuth} clients must show a certificate.
   */
  public static HttpsServer server(
      InetSocketAddress address, SSLContext context, boolean clientAuth, int threads, String name)
      throws IOException {
    HttpsServer s = HttpsServer.create(address, 64);
    s.setHttpsConfigurator(
        new HttpsConfigurator(context) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = context.getDefaultSSLParameters();
            p.setProtocols(new String[] {"TLSv1.3"});
            p.setNeedClientAuth(clientAuth);
            params.setSSLParameters(p);
          }
        });
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    s.setExecutor(pool);
    return s;
  }

  /** The CN of the client's certificate, or null if it showed none. */
  public static String peerName(HttpExchange ex) {
    try {
      Certificate[] chain = ((HttpsExchange) ex).getSSLSession().getPeerCertificates();
      return commonName((X509Certificate) chain[0]);
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /** The CN of a certificate's subject, or null. */
  public static String commonName(X509Certificate c) {
    try {
      for (Rdn r : new LdapName(c.getSubjectX500Principal().getName()).getRdns()) {
        if (r.getType().equalsIgnoreCase("CN")) {
          return r.getValue().toString();
        }
      }
    } catch (InvalidNameException e) {
      return null;
    }
    return null;
  }

  /** Reads the body, refusing more than {@link #MAX_BODY} bytes. */
  public static byte[] body(HttpExchange ex) throws IOException {
    try (InputStream in = ex.getRequestBody()) {
      byte[] b = in.readNBytes(MAX_BODY + 1);
      if (b.length > MAX_BODY) {
        throw new IOException("request body over " + MAX_BODY + " bytes");
      }
      return b;
    }
  }

  /** Sends a JSON answer. */
  public static void json(HttpExchange ex, int status, Object body) throws IOException {
    send(ex, status, "application/json", JSON.writeValueAsBytes(body));
  }

  /** Sends an error as {@code {"error": message}}. */
  public static void error(HttpExchange ex, int status, String message) throws IOException {
    json(ex, status, Map.of("error", message));
  }

  public static void send(HttpExchange ex, int status, String type, byte[] body)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      ex.getResponseBody().write(body);
    }
    ex.close();
  }

  /** The message of an error answer, for exceptions on the client side. */
  public static String errorOf(byte[] body) {
    try {
      var n = JSON.readTree(body);
      if (n != null && n.has("error")) {
        return n.get("error").asText();
      }
    } catch (IOException e) {
      // not JSON: fall through
    }
    return new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8);
  }
}
