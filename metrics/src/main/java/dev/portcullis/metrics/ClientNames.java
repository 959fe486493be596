package dev.portcullis.metrics;

import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;

/** The names a verified client certificate gives its holder: the subject's CN, its DNS names. */
final class ClientNames {
  private ClientNames() {}

  /** The names of the peer's verified certificate on {@code ssl}; empty without TLS or one. */
  static Set<String> of(SslHandler ssl) {
    if (ssl == null) {
      return Set.of();
    }
    Certificate[] chain;
    try {
      chain = ssl.engine().getSession().getPeerCertificates();
    } catch (SSLPeerUnverifiedException e) {
      return Set.of(); // none offered (a client certificate is asked for, not required)
    }
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate c)) {
      return Set.of();
    }
    Set<String> names = new LinkedHashSet<>();
    try {
      for (Rdn rdn : new LdapName(c.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          names.add(rdn.getValue().toString());
        }
      }
    } catch (InvalidNameException e) {
      // a subject the JDK wrote itself cannot be unparsable; no CN then
    }
    try {
      if (c.getSubjectAlternativeNames() != null) {
        for (List<?> san : c.getSubjectAlternativeNames()) {
          if (Integer.valueOf(2).equals(san.get(0))) { // dNSName
            names.add(san.get(1).toString());
          }
        }
      }
    } catch (CertificateParsingException e) {
      // no DNS names, then
    }
    return names;
  }
}
