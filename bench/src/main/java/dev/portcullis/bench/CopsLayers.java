package dev.portcullis.bench;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.integrity.IntegrityAlgorithm;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.integrity.KeyRing;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepSecurity;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.pki.DevCertificates;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * PDPs and PEP security settings for measuring COPS security layers on loopback: a private
 * directory with a development PKI, a trivial rules policy for the base case, and the samples'
 * policies when given; PDPs on port 0 without rate limits.
 */
public final class CopsLayers implements AutoCloseable {
  /** The client type of the rules engine, and of the multilevel-security engine. */
  public static final int RULES = 0xC0A5;

  public static final int MLS = 0xC0A6;

  private final Path dir;
  private final Path pki;

  /**
   * @param samples the directory of the sample policies ({@code policy-rules.xml}, {@code
   *     policy-mls.xml}), or null for the trivial rules policy only
   */
  public CopsLayers(Path samples) throws IOException {
    this(samples, List.of());
  }

  /**
   * As {@link #CopsLayers(Path)}, the development PDP certificate naming {@code pdpAddresses} too
   * (the addresses PEPs reach the PDP at besides loopback).
   */
  public CopsLayers(Path samples, List<String> pdpAddresses) throws IOException {
    dir = Files.createTempDirectory("portcullis-layers");
    pki = dir.resolve("pki");
    DevCertificates.ensure(pki, pdpAddresses, List.of("bench"));
    Files.writeString(
        dir.resolve("rules.xml"),
        "<rules><rule id=\"ssh\" decision=\"install\"><match service=\"ssh\"/></rule>"
            + "<default decision=\"remove\"/></rules>");
    if (samples != null) {
      for (String f : List.of("policy-rules.xml", "policy-mls.xml")) {
        Files.copy(samples.resolve(f), dir.resolve(f));
      }
    }
  }

  /** The base case's client types: the rules engine with a one-rule policy. */
  public static String trivialRules() {
    return "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>";
  }

  /** A PDP on 127.0.0.1, port 0, with these client types and security elements. */
  public PdpServer pdp(String clientTypes, String security) throws Exception {
    return pdp("127.0.0.1", clientTypes, security);
  }

  /** As {@link #pdp(String, String)}, listening on {@code address}. */
  public PdpServer pdp(String address, String clientTypes, String security) throws Exception {
    Path cfg = dir.resolve("pdp.xml");
    Files.writeString(
        cfg,
        "<pdp><listen address=\""
            + address
            + "\" port=\"0\"/>"
            + "<limits max-messages-per-second=\"100000000\" max-connections=\"4096\"/>"
            + clientTypes
            + security
            + "</pdp>");
    return PdpServer.start(PdpConfig.load(cfg), 1);
  }

  /** The PDP's {@code <security>} element for TLS (and Integrity keys, if any). */
  public String tlsSecurity(TlsEngine e, String protocol, String keys, String level) {
    return "<security><tls engine=\""
        + e.configName()
        + "\" protocols=\""
        + protocol
        + "\" dev-pki=\"pki\"/>"
        + keys
        + "<protection level=\""
        + level
        + "\"/></security>";
  }

  /** The PDP's {@code <integrity>} element: key 1 of an algorithm, its secret in a file here. */
  public static String integrityKeys(IntegrityAlgorithm alg) {
    return "<integrity><key id=\"1\" algorithm=\""
        + alg.displayName()
        + "\" secret-file=\"k1.hex\" create=\"true\""
        + (alg.legacy() ? " legacy=\"true\"" : "")
        + "/></integrity>";
  }

  /** PEP settings for TLS; {@code maxUses} 0 means a full handshake on every connection. */
  public PepSecurity tls(TlsEngine e, String protocol, int maxUses, KeyRing ring)
      throws IOException {
    DevCertificates.Pki p = DevCertificates.ensure(pki, List.of(), List.of("bench"));
    DevCertificates.Credential c = p.peps().get("bench");
    return new PepSecurity(
        new TlsSettings(e, List.of(protocol), null, null, null, pki),
        true,
        c.certificateChain(),
        c.privateKey(),
        p.caCertificate(),
        List.of(),
        new PepSecurity.SessionReuse(Duration.ofHours(1), maxUses),
        ring);
  }

  /** The PEP's key ring for the PDP's {@link #integrityKeys} (the same secret file). */
  public KeyRing ring(IntegrityAlgorithm alg, CryptoRegistry registry) throws Exception {
    var spec =
        new IntegrityKeys.Spec(
            1,
            alg,
            dir.resolve("k1.hex"),
            true,
            Instant.EPOCH,
            Instant.parse("9999-12-31T23:59:59Z"),
            "bench",
            0);
    return IntegrityKeys.ring(List.of(spec), registry);
  }

  /** PEP settings for Integrity alone. */
  public PepSecurity integrity(IntegrityAlgorithm alg, CryptoRegistry registry) throws Exception {
    return new PepSecurity(
        null,
        true,
        null,
        null,
        null,
        List.of(),
        PepSecurity.SessionReuse.DEFAULT,
        ring(alg, registry));
  }

  /** A request the trivial and sample rules policies decide (ssh to 10.1.2.3). */
  public static AccessRequest rulesRequest() {
    return request("alice", null, "ssh", 22, null);
  }

  /** A request the sample multilevel policy decides (alice reads intel-db at SECRET). */
  public static AccessRequest mlsRequest() {
    return request("alice", 2, "intel-db", 443, AccessMode.READ);
  }

  private static AccessRequest request(
      String subject, Integer level, String service, int port, AccessMode mode) {
    try {
      return new AccessRequest(
          AccessOperation.ACCESS,
          subject,
          level,
          null,
          null,
          null,
          InetAddress.getByName("10.1.2.3"),
          port,
          6,
          service,
          mode,
          null,
          null);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() throws IOException {
    Scratch.delete(dir);
  }
}
