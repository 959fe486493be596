package dev.portcullis.active.net;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/**
 * What the Authorization Server, the Code Server and their clients share: the JSON mapper, the name
 * in a certificate, and the message of an error answer. The servers themselves are {@link
 * HttpsEndpoint}.
 */
public final class Https {
  public static final ObjectMapper JSON = new ObjectMapper();

  private Https() {}

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
