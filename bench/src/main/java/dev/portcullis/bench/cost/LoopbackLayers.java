package dev.portcullis.bench.cost;

import dev.portcullis.bench.CopsLayers;
import dev.portcullis.bench.Haproxy;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.integrity.IntegrityAlgorithm;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.crypto.CryptoRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The cost-of-security harness's layers as it runs them on loopback: the raw baseline and the
 * proxies, plain COPS, Integrity, TLS per engine (and with Integrity), and the sample policy
 * engines; what cannot run here goes to {@code skipped} with the reason. {@link NetworkPaths} takes
 * them across the lab.
 */
final class LoopbackLayers {
  private LoopbackLayers() {}

  static List<Layer> of(
      CopsLayers cl,
      CryptoRegistry registry,
      List<String> engines,
      Path samples,
      List<String> skipped)
      throws Exception {
    String rules = CopsLayers.trivialRules();
    AccessRequest ar = CopsLayers.rulesRequest();
    int rt = CopsLayers.RULES;
    List<Layer> l = new ArrayList<>();
    l.add(
        Layer.tcp(
            Layer.RAW, "no COPS: the same exchanges over a bare TCP socket", Layer.Route.RAW));
    if (Haproxy.find() != null) {
      l.add(
          Layer.tcp(
              Layer.HAPROXY,
              "the raw exchanges through HAProxy (tcp mode, one thread): a proxy that decides"
                  + " nothing, the anchor for the PEP proxy",
              Layer.Route.HAPROXY));
    } else {
      skipped.add(Layer.HAPROXY + ": no haproxy on the PATH or in /usr/sbin");
    }
    l.add(
        Layer.tcp(
            Layer.PEP_PROXY,
            "the raw exchanges through the Portcullis PEP proxy (one event loop), which asks the"
                + " PDP (one rule) once per connection before it forwards a byte",
            Layer.Route.PEP_PROXY));
    l.add(
        new Layer(
            "plain",
            "base case: COPS over TCP, rules engine with one rule",
            rules,
            "",
            null,
            null,
            rt,
            ar));
    for (IntegrityAlgorithm a :
        List.of(IntegrityAlgorithm.HMAC_MD5_96, IntegrityAlgorithm.HMAC_SHA256_128)) {
      String sec =
          "<security>"
              + CopsLayers.integrityKeys(a)
              + "<protection level=\"integrity\"/></security>";
      l.add(
          new Layer(
              "integrity " + a.displayName(),
              "COPS Integrity object, "
                  + a.displayName()
                  + (a.legacy() ? " (legacy; RFC 2748's mandatory algorithm)" : ""),
              rules,
              sec,
              cl.integrity(a, registry),
              null,
              rt,
              ar));
    }
    TlsEngine first = null;
    for (String e : engines) {
      TlsEngine engine = TlsEngine.ofName(e);
      if (engine == null || engine.unavailabilityCause() != null) {
        skipped.add(e + ": " + (engine == null ? "unknown engine" : engine.unavailabilityCause()));
        continue;
      }
      first = first == null ? engine : first;
      String sec = cl.tlsSecurity(engine, "TLSv1.3", "", "confidentiality");
      l.add(
          new Layer(
              "TLS " + e,
              "TLS 1.3 (RFC 4261), engine " + e + ", mutual authentication",
              rules,
              sec,
              cl.tls(engine, "TLSv1.3", 0, null),
              cl.tls(engine, "TLSv1.3", 1_000_000, null),
              rt,
              ar));
    }
    if (first != null) {
      IntegrityAlgorithm a = IntegrityAlgorithm.HMAC_SHA256_128;
      String sec =
          cl.tlsSecurity(
              first, "TLSv1.3", CopsLayers.integrityKeys(a), "integrity+confidentiality");
      l.add(
          new Layer(
              "TLS " + first.configName() + " + integrity",
              "TLS 1.3 and the Integrity object (HMAC-SHA-256-128) together",
              rules,
              sec,
              cl.tls(first, "TLSv1.3", 0, cl.ring(a, registry)),
              cl.tls(first, "TLSv1.3", 1_000_000, cl.ring(a, registry)),
              rt,
              ar));
    }
    if (Files.isDirectory(samples)) {
      l.add(
          new Layer(
              "rules engine",
              "the sample rule set (policy-rules.xml) instead of one rule",
              "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"policy-rules.xml\"/>",
              "",
              null,
              null,
              rt,
              ar));
      l.add(
          new Layer(
              "multilevel engine",
              "the sample Bell-LaPadula/Biba policy" + " (policy-mls.xml)",
              "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\"/>",
              "",
              null,
              null,
              CopsLayers.MLS,
              CopsLayers.mlsRequest()));
    } else {
      skipped.add("rules engine, multilevel engine: no sample policies in " + samples);
    }
    return l;
  }
}
