package dev.portcullis.pep;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.PepId;
import dev.portcullis.cops.ProtectionLevel;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.integrity.KeyRing;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.Durations;
import dev.portcullis.support.XmlConfigReader;
import dev.portcullis.support.pki.DevCertificates;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * A PEP's configuration ({@code pep.xml}): its id and client type, the PDP, and how the connection
 * is protected. Relative paths resolve against the file's directory. Close it when done: it holds
 * the Integrity keys. Reference: docs/tls.md.
 */
public final class PepConfig implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PepConfig.class);

  /**
   * The session reuse the schema gives a PEP whose {@code <tls>} has no {@code <session-reuse>}.
   */
  static PepSecurity.SessionReuse defaultSessionReuse() {
    return new PepSecurity.SessionReuse(
        Durations.parse(READER.defaultOf("pep/security/tls/session-reuse", "max-age")),
        Integer.parseInt(READER.defaultOf("pep/security/tls/session-reuse", "max-uses")));
  }

  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(PepConfig.class, "/dev/portcullis/pep/pep.xsd");

  private final String pepId;
  private final int clientType;
  private final List<InetSocketAddress> pdps;
  private final PepSecurity security;
  private final CryptoRegistry registry;

  private PepConfig(
      String pepId,
      int clientType,
      List<InetSocketAddress> pdps,
      PepSecurity security,
      CryptoRegistry registry) {
    this.pepId = pepId;
    this.clientType = clientType;
    this.pdps = List.copyOf(pdps);
    this.security = security;
    this.registry = registry;
  }

  public String pepId() {
    return pepId;
  }

  public int clientType() {
    return clientType;
  }

  /** The (first) PDP. */
  public InetSocketAddress pdp() {
    return pdps.get(0);
  }

  /** The PDPs in order of preference: one, or a fleet's members ({@code <pdp>} repeated). */
  public List<InetSocketAddress> pdps() {
    return pdps;
  }

  /** A client builder set up as this file says: PDPs, id, client type, security. */
  public PepClient.Builder clientBuilder() {
    return PepClient.builder().pdps(pdps).pepId(pepId).clientType(clientType).security(security);
  }

  /**
   * The crypto registry this file configures (with Integrity, from its {@code <crypto>} or the
   * built-in defaults), or null when nothing here uses one.
   */
  public CryptoRegistry registry() {
    return registry;
  }

  /** TLS and Integrity, or null for plain COPS. */
  public PepSecurity security() {
    return security;
  }

  /** Reads and validates {@code pep.xml}; makes development certificates if TLS names none. */
  public static PepConfig load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Path dir = file.toAbsolutePath().getParent();
    String source = file.toString();
    String id = attr(root, "id", "");
    try {
      new PepId(id);
    } catch (IllegalArgumentException e) {
      throw error(root, "id", e.getMessage());
    }
    int clientType;
    try {
      clientType = Integer.decode(XmlConfigReader.value(root, "client-type"));
    } catch (NumberFormatException e) {
      clientType = -1;
    }
    if (clientType < 1 || clientType > 0xFFFF) {
      throw error(
          root,
          "client-type",
          "client-type: " + attr(root, "client-type", "") + " (expected: 1 to 0xFFFF)");
    }
    List<InetSocketAddress> pdps = new ArrayList<>();
    List<Element> named = children(root, "pdp");
    // none named: the one the schema's defaults make
    for (Element p : named.isEmpty() ? List.of(READER.orDefaults(root, "pdp")) : named) {
      String host = XmlConfigReader.value(p, "address");
      InetSocketAddress pdp =
          new InetSocketAddress(host, XmlConfigReader.integer(p, "port", 1, 0xFFFF));
      if (pdp.isUnresolved()) {
        throw error(p, "address", "address: " + host + " does not resolve");
      }
      pdps.add(pdp);
    }
    // Checked where it is named, whether or not anything here uses it.
    Path crypto = ConfigFiles.existingFile(child(root, "crypto"), "config", dir);
    Element sec = child(root, "security");
    if (sec == null) {
      return new PepConfig(id, clientType, pdps, null, null);
    }
    CryptoRegistry registry = null;
    try {
      KeyRing ring = null;
      Element integrity = child(sec, "integrity");
      if (integrity != null) {
        List<IntegrityKeys.Spec> specs = IntegrityKeys.parse(integrity, dir, source);
        registry = IntegrityKeys.registry(crypto, specs);
        if (crypto == null) {
          log.info(
              "crypto: no <crypto config=...> in {}: built-in provider defaults (the JDK's)",
              source);
        }
        ring = IntegrityKeys.ring(specs, registry);
      }
      PepSecurity security = security(child(sec, "tls"), dir, source, id, ring);
      if (sec.hasAttribute("level")) {
        ProtectionLevel want = ProtectionLevel.ofName(sec.getAttribute("level"));
        if (want == null) {
          throw error(
              sec,
              "level",
              "level: "
                  + sec.getAttribute("level")
                  + " (expected: none, integrity, confidentiality or integrity+confidentiality)");
        }
        if (want != security.level()) {
          throw error(
              sec,
              "level",
              "level "
                  + want.configName()
                  + " does not match what is configured ("
                  + security.level().configName()
                  + "): "
                  + (want.tls() ? "add" : "remove")
                  + " <tls> or "
                  + (want.integrity() ? "add" : "remove")
                  + " <integrity> as needed");
        }
      }
      return new PepConfig(id, clientType, pdps, security, registry);
    } catch (ConfigException | RuntimeException e) {
      if (registry != null) {
        registry.close();
      }
      throw e;
    }
  }

  private static PepSecurity security(
      Element tlsElement, Path dir, String source, String pepId, KeyRing ring)
      throws ConfigException {
    if (tlsElement == null) {
      return new PepSecurity(
          null, true, null, null, null, List.of(), PepSecurity.SessionReuse.DEFAULT, ring);
    }
    TlsSettings tls = TlsSettings.parse(tlsElement, dir, true); // enrolment writes them
    List<String> authorised = new ArrayList<>();
    for (Element a : children(tlsElement, "authorised-pdp")) {
      authorised.add(attr(a, "name", ""));
    }
    Element r = READER.orDefaults(tlsElement, "session-reuse");
    PepSecurity.SessionReuse reuse =
        new PepSecurity.SessionReuse(
            XmlConfigReader.duration(r, "max-age"),
            XmlConfigReader.integer(r, "max-uses", 0, Integer.MAX_VALUE));
    Path cert = tls.certificate();
    Path key = tls.key();
    Path trust = tls.trust();
    if (tls.development()) {
      try {
        DevCertificates.Pki pki = DevCertificates.ensure(tls.devPki(), List.of(), List.of(pepId));
        if (tls.developmentChosen()) {
          log.info(
              "TLS: development certificates from {} (dev-pki; not for production)",
              pki.directory());
        } else {
          log.warn(
              "TLS: no certificate configured; using development certificates from {} (not for"
                  + " production)",
              pki.directory());
        }
        cert = pki.peps().get(pepId).certificateChain();
        key = pki.peps().get(pepId).privateKey();
        trust = pki.caCertificate();
      } catch (IOException | IllegalArgumentException e) {
        throw new ConfigException(
            source, "development certificates in " + tls.devPki() + ": " + e.getMessage(), e);
      }
    }
    return new PepSecurity(
        tls,
        XmlConfigReader.bool(tlsElement, "initiate"),
        cert,
        key,
        trust,
        authorised,
        reuse,
        ring);
  }

  @Override
  public void close() {
    if (registry != null) {
      registry.close();
    }
  }
}
