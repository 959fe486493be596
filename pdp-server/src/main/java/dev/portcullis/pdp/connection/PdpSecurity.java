package dev.portcullis.pdp.connection;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.ProtectionLevel;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.Glob;
import dev.portcullis.support.XmlConfigReader;
import io.netty.handler.ssl.ClientAuth;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.w3c.dom.Element;

/**
 * The {@code <security>} section of pdp.xml: TLS (RFC 4261), the PEP identity rule for mutual
 * authentication, Integrity keys, and the protection level each PEP must meet. Reference:
 * docs/tls.md.
 *
 * @param tls TLS settings, or null when the PDP does not speak TLS
 * @param clientAuth whether PEPs must present certificates
 * @param initiate offer TLS to a plain PEP whose level needs it (RFC 4261 section 5.2) rather than
 *     refuse it with error 15, sub-code 0x1002
 * @param sessionTimeout how long a TLS session stays resumable
 * @param identityFrom where a PEP certificate's identity is read
 * @param identityMap certificate identity to PEP id; identities not listed must equal the PEP id
 * @param keys Integrity keys (empty: the PDP does not speak Integrity)
 * @param protection first matching rule gives a PEP's level; none matching: {@code none}
 * @param enrolment one-time credential enrolment, or null when not offered
 * @param tunnels the tunnel policy file (client type 0xC0A8, docs/tunnels.md), or null when this
 *     PDP grants no tunnels
 */
public record PdpSecurity(
    TlsSettings tls,
    ClientAuth clientAuth,
    boolean initiate,
    Duration sessionTimeout,
    int sessionCacheSize,
    IdentitySource identityFrom,
    Map<String, String> identityMap,
    List<IntegrityKeys.Spec> keys,
    List<Protection> protection,
    Enrolment enrolment,
    Path tunnels) {

  /**
   * Enrolment with one-time credentials: where they are kept, the CA that signs the certificates
   * (null: the development CA of {@code tls}), and how long those certificates last.
   */
  public record Enrolment(Path store, Path caCertificate, Path caKey, Duration lifetime) {}

  /** Where a PEP's identity is read from its certificate. */
  public enum IdentitySource {
    SUBJECT_CN("subject-cn"),
    SAN_DNS("san-dns");

    final String configName;

    IdentitySource(String configName) {
      this.configName = configName;
    }
  }

  /** PEPs whose id matches {@code pep} (a glob) must meet {@code level}. */
  public record Protection(Pattern pep, ProtectionLevel level) {}

  public PdpSecurity {
    identityMap = Collections.unmodifiableMap(new LinkedHashMap<>(identityMap));
    keys = List.copyOf(keys);
    protection = List.copyOf(protection);
  }

  /** The level PEP {@code pepId} must meet. */
  public ProtectionLevel levelFor(String pepId) {
    for (Protection p : protection) {
      if (p.pep().matcher(pepId).matches()) {
        return p.level();
      }
    }
    return ProtectionLevel.NONE;
  }

  /** Reads {@code security}; null when absent. */
  public static PdpSecurity parse(Element security, Path dir, String source)
      throws ConfigException {
    if (security == null) {
      return null;
    }
    Element tlsElement = child(security, "tls");
    TlsSettings tls = null;
    ClientAuth auth = ClientAuth.NONE;
    boolean initiate = false;
    Duration timeout = Duration.ofHours(1);
    int cache = 0;
    IdentitySource from = IdentitySource.SUBJECT_CN;
    Map<String, String> map = new LinkedHashMap<>();
    if (tlsElement != null) {
      tls = TlsSettings.parse(tlsElement, dir);
      String a = XmlConfigReader.value(tlsElement, "client-auth");
      switch (a) {
        case "require":
          auth = ClientAuth.REQUIRE;
          break;
        case "optional":
          auth = ClientAuth.OPTIONAL;
          break;
        case "none":
          auth = ClientAuth.NONE;
          break;
        default:
          throw error(
              tlsElement,
              "client-auth",
              "client-auth: " + a + " (expected: require, optional or none)");
      }
      initiate = XmlConfigReader.bool(tlsElement, "initiate");
      timeout = XmlConfigReader.duration(tlsElement, "session-timeout");
      if (timeout.isNegative() || timeout.getSeconds() > Integer.MAX_VALUE) {
        throw error(
            tlsElement,
            "session-timeout",
            "session-timeout: " + timeout + " (expected: 0 or more)");
      }
      cache = XmlConfigReader.integer(tlsElement, "session-cache", 0, Integer.MAX_VALUE);
      Element id = child(tlsElement, "pep-identity");
      if (id != null) {
        String f = XmlConfigReader.value(id, "from");
        from = null;
        for (IdentitySource s : IdentitySource.values()) {
          if (s.configName.equals(f)) {
            from = s;
          }
        }
        if (from == null) {
          throw error(id, "from", "from: " + f + " (expected: subject-cn or san-dns)");
        }
        for (Element m : children(id, "map")) {
          if (map.put(attr(m, "certificate", ""), XmlConfigReader.value(m, "pep")) != null) {
            throw error(
                m,
                "certificate",
                "certificate identity " + attr(m, "certificate", "") + " mapped twice");
          }
        }
      }
    }
    Element integrity = child(security, "integrity");
    List<IntegrityKeys.Spec> keys =
        integrity == null ? List.of() : IntegrityKeys.parse(integrity, dir, source);
    List<Protection> protection = new ArrayList<>();
    for (Element p : children(security, "protection")) {
      String name = attr(p, "level", "none");
      ProtectionLevel level = ProtectionLevel.ofName(name);
      if (level == null) {
        throw error(
            p,
            "level",
            "level: "
                + name
                + " (expected: none, integrity, confidentiality or integrity+confidentiality)");
      }
      if (level.tls() && tls == null) {
        throw error(p, "level", "level " + name + " needs TLS, and <security> has no <tls>");
      }
      if (level.integrity() && keys.isEmpty()) {
        throw error(
            p,
            "level",
            "level " + name + " needs Integrity keys, and <security> has no <integrity> key");
      }
      protection.add(new Protection(Glob.pattern(XmlConfigReader.value(p, "pep")), level));
    }
    Enrolment enrolment = null;
    Element e = child(security, "enrolment");
    if (e != null) {
      if (tls == null) {
        throw error(e, "store", "enrolment runs over TLS only, and <security> has no <tls>");
      }
      if (auth == ClientAuth.REQUIRE) {
        throw error(
            e,
            "store",
            "enrolment needs client-auth=\"optional\" on <tls>: an enrolling PEP has no"
                + " certificate yet (only enrolment is open to PEPs without one)");
      }
      Path ca = ConfigFiles.pemFile(e, "ca-certificate", dir);
      Path caKey = ConfigFiles.pemFile(e, "ca-key", dir);
      if ((ca == null) != (caKey == null)) {
        throw error(
            e,
            ca == null ? "ca-certificate" : "ca-key",
            "ca-certificate and ca-key: name both or neither");
      }
      if (ca == null && !tls.development()) {
        throw error(
            e,
            "ca-certificate",
            "ca-certificate and ca-key: required unless <tls> uses development certificates");
      }
      Duration lifetime = XmlConfigReader.duration(e, "certificate-lifetime");
      if (lifetime.isNegative() || lifetime.isZero()) {
        throw error(
            e,
            "certificate-lifetime",
            "certificate-lifetime: " + lifetime + " (expected: positive)");
      }
      enrolment = new Enrolment(dir.resolve(attr(e, "store", "")), ca, caKey, lifetime);
    }
    Path tunnels = null;
    Element t = child(security, "tunnels");
    if (t != null) {
      if (tls == null) {
        throw error(
            t, "policy", "tunnels carry their keys over TLS only, and <security> has no <tls>");
      }
      tunnels = ConfigFiles.existingFile(t, "policy", dir);
    }
    return new PdpSecurity(
        tls, auth, initiate, timeout, cache, from, map, keys, protection, enrolment, tunnels);
  }
}
