package dev.portcullis.pdp;

import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.integrity.KeyRing;
import dev.portcullis.cops.tls.CopsTls;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.pdp.connection.PdpSecurity;
import dev.portcullis.pdp.enrol.CredentialStore;
import dev.portcullis.pdp.enrol.Enroller;
import dev.portcullis.state.StateStore;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.pki.DevCertificates;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the PDP's crypto configuration and {@link PdpSecurity} settings open into when it starts:
 * the crypto registry (always: the {@code <crypto config=...>} table, or the built-in defaults),
 * the TLS context, the Integrity key ring and the enroller (each null when not configured).
 */
final class PdpSecurityMaterial implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PdpSecurityMaterial.class);

  final CopsTls tls;
  final KeyRing ring;
  final CryptoRegistry registry;
  final Enroller enroller;

  private PdpSecurityMaterial(
      CopsTls tls, KeyRing ring, CryptoRegistry registry, Enroller enroller) {
    this.tls = tls;
    this.ring = ring;
    this.registry = registry;
    this.enroller = enroller;
  }

  /**
   * Opens the crypto registry and what the security section names; all closed on failure.
   *
   * @param fleet the fleet's ZooKeeper store (credentials are then single-use fleet-wide), or null
   */
  static PdpSecurityMaterial open(PdpConfig config, StateStore fleet)
      throws ConfigException, IOException {
    PdpSecurity s = config.security();
    List<IntegrityKeys.Spec> keys = s == null ? List.of() : s.keys();
    CryptoRegistry registry = IntegrityKeys.registry(config.crypto(), keys);
    if (config.crypto() == null) {
      log.info(
          "crypto: no <crypto config=...> in {}: built-in provider defaults (the JDK's)",
          config.source());
    }
    log.info("crypto: {}", registry.summary());
    registry.addListener(t -> log.info("crypto: switched to {}", registry.summary()));
    KeyRing ring = null;
    CopsTls tls = null;
    try {
      if (!keys.isEmpty()) {
        ring = IntegrityKeys.ring(keys, registry);
        log.info("Integrity: {}", ring.keys());
      }
      if (s != null && s.tls() != null) {
        tls = serverTls(config, s);
      }
      Enroller enroller = s == null || s.enrolment() == null ? null : enroller(s, registry, fleet);
      return new PdpSecurityMaterial(tls, ring, registry, enroller);
    } catch (ConfigException | IOException | RuntimeException e) {
      new PdpSecurityMaterial(tls, ring, registry, null).close();
      throw e;
    }
  }

  private static Enroller enroller(PdpSecurity s, CryptoRegistry registry, StateStore fleet)
      throws IOException {
    PdpSecurity.Enrolment e = s.enrolment();
    Path caCrt = e.caCertificate();
    Path caKey = e.caKey();
    if (caCrt == null) {
      DevCertificates.Pki pki = DevCertificates.ensure(s.tls().devPki(), List.of(), List.of());
      caCrt = pki.caCertificate();
      caKey = pki.directory().resolve("ca.key");
    }
    try {
      Enroller enroller =
          new Enroller(
              CredentialStore.open(e.store(), registry.digester(Algorithm.SHA_256), fleet),
              DevCertificates.certificateFile(caCrt),
              DevCertificates.privateKeyFile(caKey),
              e.lifetime());
      log.info(
          "enrolment: one-time credentials in {}, certificates signed by {} for {}",
          fleet == null ? enroller.store().directory() : fleet.describe(),
          caCrt,
          e.lifetime());
      return enroller;
    } catch (GeneralSecurityException x) {
      throw new IOException("enrolment CA " + caCrt + ": " + x.getMessage(), x);
    }
  }

  private static CopsTls serverTls(PdpConfig config, PdpSecurity s) throws IOException {
    TlsSettings t = s.tls();
    Path chain = t.certificate();
    Path key = t.key();
    Path trust = t.trust();
    if (t.development()) {
      List<String> names = new ArrayList<>();
      if (!config.address().isLoopbackAddress() && !config.address().isAnyLocalAddress()) {
        names.add(config.address().getHostAddress());
      }
      DevCertificates.Pki pki = DevCertificates.ensure(t.devPki(), names, List.of());
      if (t.developmentChosen()) {
        log.info(
            "TLS: development certificates from {} (dev-pki; not for production)", pki.directory());
      } else {
        log.warn(
            "TLS: no certificate configured; using development certificates from {} (not for"
                + " production)",
            pki.directory());
      }
      chain = pki.pdp().certificateChain();
      key = pki.pdp().privateKey();
      trust = pki.caCertificate();
    }
    namesTheListenAddress(chain, config.address());
    CopsTls tls =
        CopsTls.server(
            t,
            chain,
            key,
            trust,
            s.clientAuth(),
            s.sessionTimeout().getSeconds(),
            s.sessionCacheSize());
    log.info(
        "TLS: {} engine, {}, client certificates {}, sessions resumable for {}, PEPs {} TLS",
        t.engine().configName(),
        t.protocols(),
        s.clientAuth().name().toLowerCase(Locale.ROOT),
        s.sessionTimeout(),
        s.initiate() ? "offered (RFC 4261 5.2) when they need" : "refused without");
    return tls;
  }

  /**
   * Says at start when the PDP's certificate does not name the address it listens on (issue 47: a
   * PEP that names the PDP by that address refuses the handshake, and all the PDP saw was the PEP's
   * alert). A wildcard listen address names nothing to compare.
   */
  static void namesTheListenAddress(Path chain, java.net.InetAddress listen) throws IOException {
    if (listen.isAnyLocalAddress()) {
      return;
    }
    X509Certificate leaf;
    try (var in = java.nio.file.Files.newInputStream(chain)) {
      leaf = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (GeneralSecurityException e) {
      throw new IOException(chain + ": not a certificate: " + e.getMessage(), e);
    }
    List<String> names = CopsTls.subjectAltNames(leaf);
    String address = listen.getHostAddress();
    if (names.contains(CopsTls.canonicalAddress(address))) {
      return;
    }
    // a certificate naming the PDP by DNS name is the usual production case: said, not warned
    boolean byName = names.stream().anyMatch(n -> !n.matches("[0-9.]+|[0-9a-f:.]*:[0-9a-f:.]*"));
    String line =
        "TLS: the PDP's certificate {} names {} but not the listen address {}: a PEP that names"
            + " the PDP by that address (<authorised-pdp name> in its configuration) refuses it";
    if (byName) {
      log.info(line, chain, names.isEmpty() ? "nothing" : names, address);
    } else {
      log.warn(line, chain, names.isEmpty() ? "nothing" : names, address);
    }
  }

  @Override
  public void close() {
    if (tls != null) {
      tls.close();
    }
    if (registry != null) {
      registry.close();
    }
  }
}
