package dev.portcullis.cops.tls;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.XmlConfigReader;
import dev.portcullis.support.pki.DevCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * The TLS settings a PDP and a PEP share: engine, protocol versions, own certificate and key, the
 * CA certificates trusted to authenticate the peer, and where development certificates go when no
 * files are named. Read from a {@code <tls>} element.
 *
 * @param certificate PEM certificate chain (own first), or null to use development certificates
 * @param key PKCS#8 PEM private key of {@code certificate}, or null
 * @param trust PEM CA certificates that authenticate the peer, or null with development ones
 * @param devPki directory of the development PKI ({@link DevCertificates}), used when no files
 */
public record TlsSettings(
    TlsEngine engine, List<String> protocols, Path certificate, Path key, Path trust, Path devPki) {

  /** TLS 1.3 and 1.2: nothing older is offered (RFC 8996). */
  public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

  /** Where development certificates go when the config names no directory. */
  public static final Path DEFAULT_DEV_PKI =
      Path.of(System.getProperty("user.home"), ".portcullis", "dev-pki");

  public TlsSettings {
    Objects.requireNonNull(engine, "engine");
    protocols = List.copyOf(protocols);
    if ((certificate == null) != (key == null)) {
      throw new IllegalArgumentException("certificate and key go together");
    }
    if (certificate != null && trust == null) {
      throw new IllegalArgumentException("a certificate needs a trust file too");
    }
    Objects.requireNonNull(devPki, "devPki");
  }

  /** Settings with development certificates in {@code devPki}. */
  public static TlsSettings development(TlsEngine engine, Path devPki) {
    return new TlsSettings(engine, PROTOCOLS, null, null, null, devPki);
  }

  /** True when the certificates come from the development PKI. */
  public boolean development() {
    return certificate == null;
  }

  /**
   * True when the configuration named the development PKI's directory ({@code dev-pki}): the
   * development certificates were asked for, not fallen back to. Logged at INFO then, WARN
   * otherwise, so that a sample configuration starts without a warning and a production one that
   * forgot its certificates does not.
   */
  public boolean developmentChosen() {
    return development() && !devPki.equals(DEFAULT_DEV_PKI);
  }

  /**
   * Reads the attributes {@code engine}, {@code protocols}, {@code certificate}, {@code key},
   * {@code trust} and {@code dev-pki} of {@code tls}; relative paths resolve against {@code dir}.
   */
  public static TlsSettings parse(Element tls, Path dir) throws ConfigException {
    return parse(tls, dir, false);
  }

  /**
   * As {@link #parse(Element, Path)}; with {@code ownMadeLater} the own certificate and key may be
   * missing (a PEP's enrolment writes them), though if present they must be PEM. The trust file
   * must always exist.
   */
  public static TlsSettings parse(Element tls, Path dir, boolean ownMadeLater)
      throws ConfigException {
    String engineName = attr(tls, "engine", TlsEngine.DEFAULT.configName());
    TlsEngine engine = TlsEngine.ofName(engineName);
    if (engine == null) {
      throw error(
          tls,
          "engine",
          "engine: " + engineName + " (expected: openssl, jdk, conscrypt or bouncycastle)");
    }
    String cause = engine.unavailabilityCause();
    if (cause != null && !tls.hasAttribute("engine")) {
      // The default engine's native library is not there (another platform): JSSE works anywhere.
      LoggerFactory.getLogger(TlsSettings.class)
          .warn(
              "TLS: the default engine {} cannot run here ({}); using {}",
              engine.configName(),
              cause,
              TlsEngine.JDK.configName());
      engine = TlsEngine.JDK;
      cause = null;
    }
    if (cause != null) {
      throw error(
          tls, "engine", "TLS engine " + engineName + " cannot run on this machine: " + cause);
    }
    List<String> protocols = new ArrayList<>();
    for (String p : XmlConfigReader.value(tls, "protocols").trim().split("\\s+")) {
      if (!PROTOCOLS.contains(p)) {
        throw error(
            tls,
            "protocols",
            "protocols: "
                + p
                + " (expected: TLSv1.3 and/or TLSv1.2; older versions are not offered)");
      }
      if (!protocols.contains(p)) {
        protocols.add(p);
      }
    }
    boolean named = path(tls, "certificate", dir) != null;
    if (named != (path(tls, "key", dir) != null)) {
      throw error(
          tls,
          named ? "key" : "certificate",
          "certificate and key: name both or neither (neither uses development certificates)");
    }
    if (named && path(tls, "trust", dir) == null) {
      throw error(
          tls, "trust", "trust: missing (expected: the CA certificates that issue the peers')");
    }
    Path cert = own(tls, "certificate", dir, ownMadeLater);
    Path key = own(tls, "key", dir, ownMadeLater);
    Path trust = ConfigFiles.pemFile(tls, "trust", dir);
    Path pki = path(tls, "dev-pki", dir);
    return new TlsSettings(
        engine, protocols, cert, key, trust, pki == null ? DEFAULT_DEV_PKI : pki);
  }

  private static Path own(Element e, String a, Path dir, boolean madeLater) throws ConfigException {
    Path p = path(e, a, dir);
    return madeLater && p != null && !Files.exists(p) ? p : ConfigFiles.pemFile(e, a, dir);
  }

  private static Path path(Element e, String a, Path dir) {
    String v = XmlConfigReader.attr(e, a, null);
    return v == null || v.isBlank() ? null : dir.resolve(v).normalize();
  }
}
