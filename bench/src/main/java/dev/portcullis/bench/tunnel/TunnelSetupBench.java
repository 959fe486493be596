package dev.portcullis.bench.tunnel;

import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.pki.DevCertificates;
import dev.portcullis.support.pki.TunnelCertificates;
import dev.portcullis.tunnel.OneTimeKey;
import dev.portcullis.tunnel.ProtectionObjective;
import dev.portcullis.tunnel.TunnelConnection;
import dev.portcullis.tunnel.TunnelKeying;
import dev.portcullis.tunnel.lab.NetworkLab;
import dev.portcullis.tunnel.lab.StreamProbe;
import dev.portcullis.tunnel.vici.ViciClient;
import dev.portcullis.tunnel.vici.ViciMessage;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Tunnel set-up and revocation with the PDP and without, side by side in one run. The baseline,
 * with no PDP in the way: in the network lab (two namespaces, a charon in each), {@code --tunnels}
 * tunnels between distinct inner addresses, each loaded at both ends over VICI (a fresh PSK, the
 * connection), then initiated one after another: the time from {@code initiate} sent until charon
 * answers that the CHILD_SA is up (charon answers {@code initiate} once it is). Then, with all of
 * them up, each terminated in turn: the time from {@code terminate} sent until the responder
 * reports the IKE_SA down ({@code ike-updown}). Set-up time is also given per block of tunnels, to
 * see whether it stays flat as the count grows. Then the same count through the PDP ({@link
 * PdpTunnels}): request to CHILD_SA up, and revocation to the IKE_SA down at both ends
 * (docs/tunnels.md).
 */
@Command(
    name = "tunnel-setup-bench",
    mixinStandardHelpOptions = true,
    description =
        "Time tunnel set-up and revocation between two charons in network namespaces: bare VICI,"
            + " then granted by the PDP to tunnel agents.")
public final class TunnelSetupBench implements Callable<Integer> {
  @Option(
      names = "--tunnels",
      defaultValue = "100",
      description = "Tunnels set up, then revoked (default: ${DEFAULT-VALUE}; at most 2000).")
  int tunnels;

  @Option(
      names = "--objective",
      defaultValue = "confidentiality",
      description = "integrity or confidentiality (default: ${DEFAULT-VALUE}).")
  String objective;

  @Option(
      names = "--block",
      defaultValue = "50",
      description = "Tunnels per line of the growth table (default: ${DEFAULT-VALUE}).")
  int block;

  @Option(
      names = "--stream",
      defaultValue = "3",
      description =
          "Seconds of TCP stream across the veth, then through a tunnel (0: none; default:"
              + " ${DEFAULT-VALUE}).")
  int streamSeconds;

  @Option(
      names = "--bare-only",
      description = "Measure bare VICI only, without the PDP-driven half.")
  boolean bareOnly;

  @Option(
      names = "--no-certificates",
      description =
          "Leave out the bare set-up keyed by one-time key pairs with certificates (issue 46).")
  boolean noCertificates;

  @Option(
      names = "--warmup",
      defaultValue = "0",
      description =
          "Tunnels set up and taken down, untimed, before each timed round: through the PDP"
              + " before a PDP-driven one, bare before a bare one. A PDP is a long-running server,"
              + " and the bench's JVM runs it cold, compiling its path beside the two charons on"
              + " the same cores; both sides of each ratio are warmed alike"
              + " (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(
      names = "--rounds",
      defaultValue = "1",
      description =
          "Rounds of the whole sequence (bare PSK, bare certificates, PDP PSK, PDP certificates),"
              + " each ratio its round's, so that a busy machine's drift falls on both sides of"
              + " every ratio; the warm-up comes before the first round only"
              + " (default: ${DEFAULT-VALUE}; at most 20).")
  int rounds;

  @Option(
      names = "--revoke-subject",
      description =
          "Revoke the PDP-driven tunnels as an operator revokes their subject, all at once, rather"
              + " than one tunnel at a time (docs/operate.md).")
  boolean revokeSubject;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("tunnel-setup-bench", new TunnelSetupBench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (tunnels < 1
        || tunnels > 2000
        || block < 1
        || warmup < 0
        || warmup > 2000
        || rounds < 1
        || rounds > 20) {
      err.println(
          "error: --tunnels must be 1 to 2000, --block at least 1, --warmup 0 to 2000, --rounds 1"
              + " to 20");
      return 2;
    }
    ProtectionObjective po = ProtectionObjective.of(objective);
    if (!po.needsTunnel()) {
      err.println("error: --objective " + objective + ": " + po.refusal());
      return 2;
    }
    String why = NetworkLab.unavailable();
    if (why != null) {
      err.println("tunnel-setup-bench: the network lab cannot run here: " + why);
      return 1;
    }
    Path dir = Files.createTempDirectory("portcullis-tunnel-bench");
    out.printf(
        "making the network lab (two namespaces, a charon in each) and loading %d tunnels...%n",
        tunnels);
    out.flush();
    try (NetworkLab lab = NetworkLab.create(dir)) {
      List<String> innerA = new ArrayList<>();
      List<String> innerB = new ArrayList<>();
      for (int i = 0; i < tunnels; i++) {
        innerA.add(
            "10.1." + (i / 250 + 1) + "." + (i % 250 + 1) + "/32"); // 10.1.0.1: the lab's own
        innerB.add("10.2." + (i / 250 + 1) + "." + (i % 250 + 1) + "/32");
      }
      lab.addInnerAddresses(lab.a(), innerA);
      lab.addInnerAddresses(lab.b(), innerB);
      try (ViciClient a = ViciClient.connect(lab.startCharon(lab.a()), Duration.ofSeconds(30));
          ViciClient b = ViciClient.connect(lab.startCharon(lab.b()), Duration.ofSeconds(30))) {
        Lab l = new Lab(out, lab, a, b, innerA, innerB, po, dir);
        boolean ok = true;
        List<double[]> ratios = new ArrayList<>(); // per round: PSK, certificates (NaN: none)
        for (int round = 1; round <= rounds; round++) {
          if (rounds > 1) {
            out.printf("%n-- round %d of %d --%n", round, rounds);
          }
          int warm = round == 1 ? warmup : 0; // the JVM stays warm from one round to the next
          Bare psk = bare(l, warm, round == 1);
          long[] setup = psk.setup();
          ok &= psk.ok();
          long[] certSetup = null;
          if (!noCertificates) {
            certSetup = certified(l, setup, warm);
            ok &= certSetup != null;
          }
          double[] ratio = {Double.NaN, Double.NaN};
          if (!bareOnly) {
            PdpTunnels.Times pdp =
                PdpTunnels.run(
                    lab, dir.resolve("pdp-" + round), innerA, po, false, warm, revokeSubject);
            ratio[0] = reportPdp(out, "pre-shared keys", setup, pdp);
            ok &= pdp.failed() == 0 && pdp.left() == 0;
            if (certSetup != null) {
              PdpTunnels.Times cert =
                  PdpTunnels.run(
                      lab, dir.resolve("pdp-c-" + round), innerA, po, true, warm, revokeSubject);
              ratio[1] = reportPdp(out, "one-time key pairs, certificates", certSetup, cert);
              ok &= cert.failed() == 0 && cert.left() == 0;
            }
          }
          ratios.add(ratio);
        }
        if (rounds > 1 && !bareOnly) {
          summary(out, ratios);
        }
        return ok ? 0 : 1;
      }
    } finally {
      Scratch.delete(dir);
    }
  }

  /**
   * The bare PSK round: {@code tunnels} tunnels loaded at both ends (a fresh PSK each; timed
   * apart), warmed {@code warm} times, initiated one after another, with {@code stream} a TCP
   * stream across the veth and through the first, then terminated one after another with all the
   * others up, and unloaded. Reports; returns the set-up times, and whether none failed and nothing
   * was left.
   */
  private Bare bare(Lab l, int warm, boolean stream) throws Exception {
    PrintWriter out = l.out();
    ViciClient a = l.a();
    ViciClient b = l.b();
    List<TunnelConnection> all = new ArrayList<>();
    long[] load = new long[tunnels];
    for (int i = 0; i < tunnels; i++) {
      long l0 = System.nanoTime();
      TunnelConnection t =
          l.lab()
              .loadTunnel(
                  a,
                  b,
                  "b-" + i,
                  l.innerA().get(i),
                  l.innerB().get(i),
                  l.po(),
                  Duration.ofHours(1));
      load[i] = System.nanoTime() - l0;
      all.add(t);
    }
    out.printf("setting up, then revoking, %d tunnels one at a time...%n", tunnels);
    out.flush();
    Initiated up = upEach(a, b, all, warm);
    long[] setup = up.setup();
    int failed = up.failed();
    int installed = a.listSas(null).size();
    StreamProbe.Result plain = null;
    StreamProbe.Result tunneled = null;
    if (stream && streamSeconds > 0 && installed > 0) {
      Duration d = Duration.ofSeconds(streamSeconds);
      plain = StreamProbe.run(l.lab(), l.dir(), l.lab().a().outer(), l.lab().b().outer(), d);
      tunneled =
          StreamProbe.run(l.lab(), l.dir(), host(l.innerA().get(0)), host(l.innerB().get(0)), d);
    }
    Map<String, Long> down = new ConcurrentHashMap<>();
    AutoCloseable sub =
        b.await(
            b.subscribe(
                "ike-updown",
                m -> {
                  if (m.text("up") == null) { // "up" is present only when it came up
                    long now = System.nanoTime();
                    m.keys().forEach(k -> down.putIfAbsent(k, now));
                  }
                }));
    long[] revoke = new long[tunnels];
    for (int i = 0; i < tunnels; i++) {
      String name = all.get(i).name();
      long t0 = System.nanoTime();
      a.await(a.terminateIke(name, Duration.ofSeconds(5)));
      long deadline = t0 + TimeUnit.SECONDS.toNanos(5);
      while (!down.containsKey(name) && System.nanoTime() < deadline) {
        Thread.onSpinWait(); // the responder's event comes a round trip after the terminate
      }
      Long gone = down.get(name);
      revoke[i] = gone == null ? -1 : gone - t0;
    }
    sub.close();
    int left = a.listSas(null).size() + b.listSas(null).size();
    for (TunnelConnection t : all) {
      for (ViciClient c : List.of(a, b)) {
        c.await(c.unloadConn(t.name()));
        c.await(c.unloadShared(t.name()));
      }
    }
    report(out, l.po(), load, setup, revoke, failed, installed, left);
    if (plain != null) {
      out.printf(
          "TCP stream, %d s each (the dynamic VPN tunnels paper, table 5, 2003: native 92.6"
              + " Mbit/s at 14.5 cycles/B, ESP 3DES-MD5 53.9 Mbit/s at 232 cycles/B)%n",
          streamSeconds);
      stream(out, "veth, no tunnel", plain);
      stream(out, "through the tunnel, " + l.po().configName(), tunneled);
    }
    return new Bare(setup, failed == 0 && installed == tunnels && left == 0);
  }

  /**
   * What every bare round works with: where it reports, the lab and its two charons, the tunnels'
   * inner addresses at each end, their protection, and the scratch directory.
   */
  private record Lab(
      PrintWriter out,
      NetworkLab lab,
      ViciClient a,
      ViciClient b,
      List<String> innerA,
      List<String> innerB,
      ProtectionObjective po,
      Path dir) {}

  /** A bare PSK round's set-up times, and whether none failed and nothing was left. */
  private record Bare(long[] setup, boolean ok) {}

  private void report(
      PrintWriter out,
      ProtectionObjective po,
      long[] load,
      long[] setup,
      long[] revoke,
      int failed,
      int installed,
      int left) {
    out.printf(
        "tunnel set-up and revocation, bare VICI, %d tunnels, %s (%s), PSK, userspace ESP%n",
        setup.length, po.configName(), String.join(" ", po.espProposals()));
    out.printf("  %-34s %10s %10s %10s%n", "", "p50 ms", "p99 ms", "max ms");
    row(out, "load key + conn at both ends", load);
    row(out, "initiate -> CHILD_SA up", setup);
    long[] gone = Arrays.stream(revoke).filter(v -> v >= 0).toArray();
    row(out, "terminate -> down at responder", gone);
    out.printf("  set-up by block of %d tunnels (does it stay flat?):%n", block);
    for (int from = 0; from < setup.length; from += block) {
      int to = Math.min(setup.length, from + block);
      long[] part = Arrays.copyOfRange(setup, from, to);
      out.printf("    tunnels %4d-%-4d  p50 %.2f ms%n", from + 1, to, ms(Quantiles.at(part, 0.5)));
    }
    out.printf(
        "  failed %d, up after set-up %d of %d, revocations unseen %d, SAs left %d%n",
        failed, installed, setup.length, revoke.length - gone.length, left);
  }

  /**
   * The same tunnels again, keyed by one-time key pairs as the dynamic VPN tunnels paper keys them
   * and the PDP does (a fresh Ed25519 key per end and tunnel, certified for the tunnel by one
   * authority; each end trusts its peer's certificate alone): loaded ({@code load-key}, {@code
   * load-conn} with the certificates), brought up one at a time, taken down and unloaded, and the
   * certificates cleared; reported beside the PSK set-up of {@code pskSetup}, measured just before.
   * Returns the set-up times, or null if a tunnel failed or something was left.
   */
  private long[] certified(Lab l, long[] pskSetup, int warm) throws Exception {
    PrintWriter out = l.out();
    ViciClient a = l.a();
    ViciClient b = l.b();
    out.printf("making %d one-time key pairs and their certificates...%n", 2 * tunnels);
    out.flush();
    DevCertificates.Pki pki = DevCertificates.ensure(l.dir().resolve("pki"), List.of(), List.of());
    X509Certificate ca = DevCertificates.certificateFile(pki.caCertificate());
    PrivateKey caKey = DevCertificates.privateKeyFile(pki.directory().resolve("ca.key"));
    byte[] authority = ca.getEncoded();
    SecureRandom random = new SecureRandom();
    List<TunnelConnection> all = new ArrayList<>();
    List<String[]> keyIds = new ArrayList<>();
    long[] load = new long[tunnels];
    for (int i = 0; i < tunnels; i++) {
      TunnelConnection t =
          new TunnelConnection(
              "c-" + i,
              l.lab().a().outer(),
              l.lab().b().outer(),
              "c-" + i + ".a.lab",
              "c-" + i + ".b.lab",
              l.innerA().get(i),
              l.innerB().get(i),
              l.po(),
              Duration.ofHours(1));
      OneTimeKey ka = OneTimeKey.generate(random);
      OneTimeKey kb = OneTimeKey.generate(random);
      Instant now = Instant.now();
      Duration hour = Duration.ofHours(1);
      byte[] ca1 = cert(ca, caKey, ka, t.name(), t.localId(), now, hour);
      byte[] cb1 = cert(ca, caKey, kb, t.name(), t.remoteId(), now, hour);
      TunnelKeying.OneTimeKeyPair atA =
          new TunnelKeying.OneTimeKeyPair(OneTimeKey.KEY_TYPE, ka.pkcs8(), ca1, authority, cb1);
      TunnelKeying.OneTimeKeyPair atB =
          new TunnelKeying.OneTimeKeyPair(OneTimeKey.KEY_TYPE, kb.pkcs8(), cb1, authority, ca1);
      ka.zero();
      kb.zero();
      long l0 = System.nanoTime();
      String keyA = a.await(a.loadKey(atA.keyType(), atA.privateKey())).text("id");
      String keyB = b.await(b.loadKey(atB.keyType(), atB.privateKey())).text("id");
      a.await(a.loadConn(t.name(), t.toVici(atA)));
      b.await(b.loadConn(t.name(), t.mirrored().toVici(atB)));
      load[i] = System.nanoTime() - l0;
      atA.zero();
      atB.zero();
      all.add(t);
      keyIds.add(new String[] {keyA, keyB});
    }
    Initiated up = upEach(a, b, all, warm);
    long[] setup = up.setup();
    int failed = up.failed();
    int installed = a.listSas(null).size();
    for (TunnelConnection t : all) {
      a.await(a.terminateIke(t.name(), Duration.ofSeconds(5)));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (b.listSas(null).size() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20); // the responder hears each delete a round trip after the terminate
    }
    int left = a.listSas(null).size() + b.listSas(null).size();
    for (int i = 0; i < tunnels; i++) {
      String name = all.get(i).name();
      a.await(a.unloadConn(name));
      b.await(b.unloadConn(name));
      a.await(a.unloadKey(keyIds.get(i)[0]));
      b.await(b.unloadKey(keyIds.get(i)[1]));
    }
    int keysLeft =
        a.await(a.getKeys()).list("keys").size() + b.await(b.getKeys()).list("keys").size();
    a.await(a.clearCreds()); // charon keeps the certificates loaded with connections until then
    b.await(b.clearCreds());
    out.printf(
        "tunnel set-up, bare VICI, %d tunnels, %s, one-time key pairs (Ed25519, certified for one"
            + " tunnel by one authority, each end trusting the peer's certificate alone)%n",
        tunnels, l.po().configName());
    out.printf("  %-34s %10s %10s %10s%n", "", "p50 ms", "p99 ms", "max ms");
    row(out, "load key + conn at both ends", load);
    row(out, "initiate -> CHILD_SA up", setup);
    out.printf(
        "  set-up p50, certificates / PSK (the run above): %.2f%n",
        (double) Quantiles.at(setup, 0.5) / Quantiles.at(pskSetup, 0.5));
    out.printf(
        "  failed %d, up after set-up %d of %d, SAs left %d, keys left %d%n",
        failed, installed, tunnels, left, keysLeft);
    return failed == 0 && installed == tunnels && left == 0 && keysLeft == 0 ? setup : null;
  }

  /** Each tunnel's time from {@code initiate} to its CHILD_SA up, and how many failed. */
  private record Initiated(long[] setup, int failed) {}

  /** The loaded tunnels {@code all}, warmed {@code warm} times, then each brought up in turn. */
  private static Initiated upEach(ViciClient a, ViciClient b, List<TunnelConnection> all, int warm)
      throws Exception {
    warmBare(a, b, all, warm);
    long[] setup = new long[all.size()];
    int failed = 0;
    for (int i = 0; i < all.size(); i++) {
      long t0 = System.nanoTime();
      ViciMessage up =
          a.await(a.initiate(TunnelConnection.CHILD, all.get(i).name(), Duration.ofSeconds(10)));
      setup[i] = System.nanoTime() - t0;
      failed += "yes".equals(up.text("success")) ? 0 : 1;
    }
    return new Initiated(setup, failed);
  }

  /**
   * Untimed: {@code warm} set-ups of the loaded tunnels {@code all}, each taken down before the
   * next, as the PDP rounds' warm-up goes through the PDP, so that a bare round is measured as warm
   * as the PDP round it is the base of; then waits (at most 10 s) until neither charon holds an SA.
   */
  private static void warmBare(ViciClient a, ViciClient b, List<TunnelConnection> all, int warm)
      throws Exception {
    if (warm == 0) {
      return;
    }
    for (int i = 0; i < warm; i++) {
      String name = all.get(i % all.size()).name();
      a.await(a.initiate(TunnelConnection.CHILD, name, Duration.ofSeconds(10)));
      a.await(a.terminateIke(name, Duration.ofSeconds(5)));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (a.listSas(null).size() + b.listSas(null).size() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }

  private static byte[] cert(
      X509Certificate ca,
      PrivateKey caKey,
      OneTimeKey k,
      String tunnel,
      String id,
      Instant now,
      Duration life)
      throws Exception {
    return TunnelCertificates.issue(ca, caKey, k.publicKeyInfo(), "bench", tunnel, id, now, life);
  }

  /** Reports a PDP-driven round; returns its set-up p50 over {@code bare}'s (NaN: none up). */
  private double reportPdp(PrintWriter out, String keying, long[] bare, PdpTunnels.Times pdp) {
    double ratio = Double.NaN;
    long[] setup = Arrays.stream(pdp.setup()).filter(v -> v >= 0).toArray();
    long[] gone = Arrays.stream(pdp.revoke()).filter(v -> v >= 0).toArray();
    out.printf(
        "granted by the PDP to tunnel agents (TLS, audit on), same tunnels, same lab, %s%n",
        keying);
    out.printf("  %-34s %10s %10s %10s%n", "", "p50 ms", "p99 ms", "max ms");
    row(out, "request -> CHILD_SA up", setup);
    row(out, revokeSubject ? "subject revoked -> each down" : "revoke -> down at both ends", gone);
    if (revokeSubject && gone.length > 0) {
      out.printf(
          "  the subject revoked (one call): its last of %d tunnels down at both ends after %.2f"
              + " ms%n",
          gone.length, ms(Arrays.stream(gone).max().getAsLong()));
    }
    if (setup.length > 0) {
      ratio = (double) Quantiles.at(setup, 0.5) / Quantiles.at(bare, 0.5);
      out.printf(
          "  set-up p50, PDP / bare initiate of the same keying: %.2f (aim: at most 2)%n", ratio);
    }
    if (gone.length > 0 && !revokeSubject) {
      out.printf(
          "  revocation p99 with %d tunnels up: %.2f ms (aim: at most 100 ms)%n",
          pdp.revoke().length, ms(Quantiles.at(gone, 0.99)));
    }
    out.printf("  set-up by block of %d tunnels, PDP-driven:%n", block);
    for (int from = 0; from < pdp.setup().length; from += block) {
      int to = Math.min(pdp.setup().length, from + block);
      long[] part =
          Arrays.stream(Arrays.copyOfRange(pdp.setup(), from, to)).filter(v -> v >= 0).toArray();
      if (part.length > 0) {
        out.printf(
            "    tunnels %4d-%-4d  p50 %.2f ms%n", from + 1, to, ms(Quantiles.at(part, 0.5)));
      }
    }
    out.printf(
        "  failed %d, revocations unseen %d, SAs left %d%n",
        pdp.failed(), pdp.revoke().length - gone.length - pdp.failed(), pdp.left());
    for (String why : pdp.why()) {
      out.printf("  failed: %s%n", why);
    }
    return ratio;
  }

  /** Each round's PDP / bare ratio of each keying, and their median. */
  private static void summary(PrintWriter out, List<double[]> ratios) {
    out.printf(
        "%nset-up p50, PDP / bare initiate of the same keying, round by round (aim: at most 2)%n");
    String[] keyings = {"pre-shared keys", "certificates"};
    for (int k = 0; k < keyings.length; k++) {
      final int col = k;
      double[] each =
          ratios.stream().mapToDouble(r -> r[col]).filter(v -> !Double.isNaN(v)).sorted().toArray();
      if (each.length == 0) {
        continue;
      }
      StringBuilder rounds = new StringBuilder();
      for (double[] r : ratios) {
        rounds.append(String.format(" %.2f", r[col]));
      }
      double median =
          each.length % 2 == 1
              ? each[each.length / 2]
              : (each[each.length / 2 - 1] + each[each.length / 2]) / 2;
      out.printf("  %-16s rounds%s; median %.2f%n", keyings[k], rounds, median);
    }
  }

  private static void stream(PrintWriter out, String what, StreamProbe.Result r) {
    out.printf(
        "  %-34s %10.1f Mbit/s %8.1f cycles/B%n", what, r.megabitsPerSecond(), r.cyclesPerByte());
  }

  private static String host(String prefix) {
    return prefix.substring(0, prefix.indexOf('/'));
  }

  private static void row(PrintWriter out, String what, long[] nanos) {
    if (nanos.length == 0) {
      out.printf("  %-34s %10s%n", what, "none");
      return;
    }
    out.printf(
        "  %-34s %10.2f %10.2f %10.2f%n",
        what,
        ms(Quantiles.at(nanos, 0.5)),
        ms(Quantiles.at(nanos, 0.99)),
        ms(Arrays.stream(nanos).max().orElse(0)));
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }
}
