package dev.portcullis.bench.tunnel;

import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepSecurity;
import dev.portcullis.pep.tunnel.TunnelAgent;
import dev.portcullis.support.pki.DevCertificates;
import dev.portcullis.tunnel.ProtectionObjective;
import dev.portcullis.tunnel.lab.NetworkLab;
import dev.portcullis.tunnel.vici.ViciClient;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The PDP-driven half of {@link TunnelSetupBench}: a PDP granting tunnels (TLS, a tunnel policy,
 * its audit log), a gateway agent on side b and one user's agent on side a, in the same lab as the
 * bare half. Set-up is timed from the user's agent sending its request until its charon has the
 * CHILD_SA up: the COPS round trips, the PDP's decision and key, the gateway keyed first, then the
 * initiate. Revocation is timed from the PDP's revoking a tunnel until charon at both ends has
 * reported its IKE_SA down. A warm-up of tunnels set up and revoked the same way, untimed, may come
 * first.
 */
final class PdpTunnels {
  /** What the phase measured, in nanoseconds per tunnel (-1: not seen in time). */
  record Times(long[] setup, long[] revoke, int failed, int left, List<String> why) {}

  private PdpTunnels() {}

  // "try": the ike-updown subscriptions are held, unreferenced, for as long as the tunnels are
  @SuppressWarnings("try")
  static Times run(
      NetworkLab lab,
      Path dir,
      List<String> innerA,
      ProtectionObjective objective,
      boolean certificates,
      int warmup,
      boolean wholeSubject)
      throws Exception {
    int n = innerA.size();
    DevCertificates.Pki pki =
        DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("gw-1", "user"));
    Files.writeString(
        dir.resolve("tunnels.xml"),
        "<tunnels><gateway name=\"gw-1\" address=\""
            + lab.b().outer()
            + "\" ike-id=\"gw-1.lab\" network=\"10.2.0.0/16\"/>"
            + "<allow id=\"bench\" subject=\"user\" gateway=\"gw-1\""
            + " objectives=\"integrity confidentiality\" lifetime=\"1h\" max-tunnels=\""
            + n
            + "\" inner=\"10.1.0.0/16\" ike-id=\"{subject}-{tag}@vpn.lab\" credential=\"none\""
            + (certificates ? " keying=\"certificates\"" : " keying=\"psk\"")
            + "/>"
            + "</tunnels>");
    Files.writeString(dir.resolve("rules.xml"), "<rules><default decision=\"remove\"/></rules>");
    Files.writeString(
        dir.resolve("pdp.xml"),
        "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
            + "<security><tls engine=\"openssl\" dev-pki=\"pki\" client-auth=\"optional\"/>"
            + "<protection pep=\"*\" level=\"confidentiality\"/>"
            + "<enrolment store=\"credentials\"/>" // its CA certifies the tunnels' keys
            + "<tunnels policy=\"tunnels.xml\"/></security>"
            + "<audit file=\"audit.jsonl\"/></pdp>");
    Map<String, Long> downA = new ConcurrentHashMap<>();
    Map<String, Long> downB = new ConcurrentHashMap<>();
    try (PdpServer pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 2);
        TunnelAgent gateway = agent(pdp, pki, "gw-1", lab.b().vici());
        TunnelAgent user = agent(pdp, pki, "user", lab.a().vici());
        ViciClient a = ViciClient.connect(lab.a().vici(), Duration.ofSeconds(30));
        ViciClient b = ViciClient.connect(lab.b().vici(), Duration.ofSeconds(30));
        AutoCloseable subA = a.await(a.subscribe("ike-updown", m -> downs(m, downA)));
        AutoCloseable subB = b.await(b.subscribe("ike-updown", m -> downs(m, downB)))) {
      gateway
          .serveGateway(
              TunnelRequest.gateway("gw-1", InetAddress.getByName(lab.b().outer()), "gw-1.lab"))
          .get(30, TimeUnit.SECONDS);
      InetAddress outer = InetAddress.getByName(lab.a().outer());
      TunnelRequest.Objective o = TunnelRequest.Objective.valueOf(objective.name());
      for (int i = 0; i < warmup; i++) { // untimed: the same path, each tunnel gone before the next
        TunnelRequest r =
            TunnelRequest.client(
                "user",
                "gw-1",
                outer,
                TrafficSelector.parse(innerA.get(i % n)),
                o,
                "user-" + (n + i) + "@vpn.lab",
                null);
        String id = user.request("w" + i, r).get(30, TimeUnit.SECONDS);
        pdp.tunnels().revoke(id, "warm-up");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!(downA.containsKey(id) && downB.containsKey(id)) && System.nanoTime() < deadline) {
          java.util.concurrent.locks.LockSupport.parkNanos(100_000); // untimed: leave the cores
        }
      }
      long[] setup = new long[n];
      String[] ids = new String[n];
      int failed = 0;
      List<String> why = new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        TunnelRequest r =
            TunnelRequest.client(
                "user",
                "gw-1",
                outer,
                TrafficSelector.parse(innerA.get(i)),
                o,
                "user-" + i + "@vpn.lab",
                null);
        long t0 = System.nanoTime();
        try {
          ids[i] = user.request("b" + i, r).get(30, TimeUnit.SECONDS);
          setup[i] = System.nanoTime() - t0;
        } catch (Exception e) {
          failed++;
          setup[i] = -1;
          Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
          if (why.size() < 5) {
            why.add(cause.toString());
          }
        }
      }
      long[] revoke = new long[n];
      if (wholeSubject) {
        subjectRevoked(pdp, ids, revoke, downA, downB);
        int left = a.listSas(null).size() + b.listSas(null).size();
        return new Times(setup, revoke, failed, left, why);
      }
      for (int i = 0; i < n; i++) {
        if (ids[i] == null) {
          revoke[i] = -1;
          continue;
        }
        String id = ids[i];
        long t0 = System.nanoTime();
        pdp.tunnels().revoke(id, "benchmark");
        long deadline = t0 + TimeUnit.SECONDS.toNanos(5);
        while (!(downA.containsKey(id) && downB.containsKey(id)) && System.nanoTime() < deadline) {
          Thread.onSpinWait(); // both charons report it down a round trip or two later
        }
        Long ga = downA.get(id);
        Long gb = downB.get(id);
        revoke[i] = ga == null || gb == null ? -1 : Math.max(ga, gb) - t0;
      }
      int left = a.listSas(null).size() + b.listSas(null).size();
      return new Times(setup, revoke, failed, left, why);
    }
  }

  /**
   * The operator's revocation of the subject, all its tunnels at once (docs/operate.md): each
   * tunnel's time from the one call until charon at both ends reported its IKE_SA down.
   */
  private static void subjectRevoked(
      PdpServer pdp,
      String[] ids,
      long[] revoke,
      Map<String, Long> downA,
      Map<String, Long> downB) {
    long t0 = System.nanoTime();
    pdp.revokeSubject("user", "bench", "benchmark");
    long deadline = t0 + TimeUnit.SECONDS.toNanos(30);
    for (String id : ids) {
      while (id != null
          && !(downA.containsKey(id) && downB.containsKey(id))
          && System.nanoTime() < deadline) {
        java.util.concurrent.locks.LockSupport.parkNanos(50_000); // the agents need the cores
      }
    }
    for (int i = 0; i < ids.length; i++) {
      Long ga = ids[i] == null ? null : downA.get(ids[i]);
      Long gb = ids[i] == null ? null : downB.get(ids[i]);
      revoke[i] = ga == null || gb == null ? -1 : Math.max(ga, gb) - t0;
    }
  }

  /** An ike-updown that says down: when, per IKE_SA name (the first time only). */
  private static void downs(dev.portcullis.tunnel.vici.ViciMessage m, Map<String, Long> down) {
    if (m.text("up") == null) { // "up" is present only when it came up
      long now = System.nanoTime();
      m.keys().forEach(k -> down.putIfAbsent(k, now));
    }
  }

  private static TunnelAgent agent(PdpServer pdp, DevCertificates.Pki pki, String id, Path vici)
      throws Exception {
    PepSecurity tls =
        new PepSecurity(
            TlsSettings.development(TlsEngine.OPENSSL, pki.directory()),
            true,
            pki.peps().get(id).certificateChain(),
            pki.peps().get(id).privateKey(),
            pki.caCertificate(),
            List.of(),
            PepSecurity.SessionReuse.DEFAULT,
            null);
    TunnelAgent a =
        TunnelAgent.start(
            PepClient.builder()
                .pdp(pdp.address())
                .pepId(id)
                .security(tls)
                .requestTimeout(Duration.ofSeconds(30)),
            vici,
            Duration.ofSeconds(30),
            new TunnelAgent.Listener() {});
    a.open().get(30, TimeUnit.SECONDS);
    return a;
  }
}
