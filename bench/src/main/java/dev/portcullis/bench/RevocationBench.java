package dev.portcullis.bench;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepListener;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Quantiles;
import dev.portcullis.support.Scratch;
import dev.portcullis.support.pki.DevCertificates;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * How long "cut alice off now" takes (docs/operate.md): {@code --peps} PEPs hold {@code
 * --decisions} installed decisions of alice between them, beside as many of bob's; an operator
 * revokes alice through the control interface (HTTPS, a client certificate, as {@code pdp-server
 * ctl revoke} does); the time runs from the command sent until the last of her Removes has reached
 * its PEP. Each round restores her and installs her decisions again (the same handles, asked
 * again). The control interface's own round trip (a view) is measured beside it in each round, so
 * the revocation's share is seen apart from HTTPS's. Bob's decisions must not move.
 */
@Command(
    name = "revocation-bench",
    mixinStandardHelpOptions = true,
    description = "Time an operator's revocation of a subject to the last Remove at the PEPs.")
public final class RevocationBench implements Callable<Integer> {
  @Option(
      names = "--decisions",
      defaultValue = "1000",
      description = "The subject's installed decisions, over all PEPs (default: ${DEFAULT-VALUE}).")
  int decisions;

  @Option(
      names = "--peps",
      defaultValue = "4",
      description = "PEP connections sharing them (default: ${DEFAULT-VALUE}).")
  int peps;

  @Option(
      names = "--rounds",
      defaultValue = "10",
      description = "Revocations measured, after two untimed (default: ${DEFAULT-VALUE}).")
  int rounds;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static final Context CTX = new Context(Context.R_INCOMING, 0);

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("revocation-bench", new RevocationBench()).execute(args));
  }

  /** Counts alice's Removes and bob's, and when the last of alice's came. */
  static final class Heard implements PepListener {
    final AtomicInteger aliceRemoved = new AtomicInteger();
    final AtomicInteger bobRemoved = new AtomicInteger();
    final AtomicLong last = new AtomicLong();

    @Override
    public void decisionChanged(String handle, PepDecision d) {
      if (d.granted()) {
        return;
      }
      if (handle.startsWith("a")) {
        aliceRemoved.incrementAndGet();
        last.accumulateAndGet(System.nanoTime(), Math::max);
      } else {
        bobRemoved.incrementAndGet();
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (decisions < 1 || peps < 1 || peps > decisions || rounds < 1) {
      throw Cli.usage("--decisions, --peps and --rounds at least 1, --peps at most --decisions");
    }
    Path dir = Files.createTempDirectory("portcullis-revocation-bench");
    try {
      DevCertificates.Pki pki =
          DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("ops"));
      Files.writeString(
          dir.resolve("rules.xml"),
          "<rules><rule id=\"a\" decision=\"install\"><match subject=\"alice\"/></rule>"
              + "<rule id=\"b\" decision=\"install\"><match subject=\"bob\"/></rule>"
              + "<default decision=\"remove\"/></rules>");
      Files.writeString(
          dir.resolve("pdp.xml"),
          "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
              + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/>"
              + "<audit file=\"audit.jsonl\"/>"
              + "<metrics listen=\"127.0.0.1:0\"><tls certificate=\""
              + pki.pdp().certificateChain()
              + "\" key=\""
              + pki.pdp().privateKey()
              + "\" client-ca=\""
              + pki.caCertificate()
              + "\"/><operator name=\"ops\" may=\"view revoke\"/></metrics></pdp>");
      HttpClient http =
          HttpClient.newBuilder().sslContext(DevCertificates.clientContext(pki, "ops")).build();
      try (PdpServer pdp = PdpServer.start(PdpConfig.load(dir.resolve("pdp.xml")), 2)) {
        String control = "https://localhost:" + pdp.metricsAddress().getPort() + "/control/";
        Heard heard = new Heard();
        List<PepClient> clients = new ArrayList<>();
        try {
          for (int p = 0; p < peps; p++) {
            PepClient c =
                PepClient.builder()
                    .pdp(pdp.address())
                    .pepId("gw-" + p)
                    .clientType(CopsLayers.RULES)
                    .listener(heard)
                    .requestTimeout(Duration.ofSeconds(30))
                    .build();
            c.open().get(10, TimeUnit.SECONDS);
            clients.add(c);
          }
          install(clients, "b", "bob");
          long[] command = new long[rounds];
          long[] lastRemove = new long[rounds];
          long[] view = new long[rounds];
          for (int round = -2; round < rounds; round++) {
            install(clients, "a", "alice");
            heard.aliceRemoved.set(0);
            long v0 = System.nanoTime();
            post(http, control + "status", "GET");
            long v = System.nanoTime() - v0;
            long t0 = System.nanoTime();
            post(http, control + "revoke?subject=alice&reason=bench", "POST");
            long answered = System.nanoTime() - t0;
            long deadline = t0 + TimeUnit.SECONDS.toNanos(30);
            while (heard.aliceRemoved.get() < decisions && System.nanoTime() < deadline) {
              LockSupport.parkNanos(20_000); // the PEPs' loops need the cores
            }
            if (heard.aliceRemoved.get() < decisions) {
              throw Cli.notDone(
                  "only "
                      + heard.aliceRemoved.get()
                      + " of "
                      + decisions
                      + " Removes reached the PEPs in 30 s");
            }
            if (round >= 0) {
              command[round] = answered;
              lastRemove[round] = heard.last.get() - t0;
              view[round] = v;
            }
            post(http, control + "restore?subject=alice", "POST");
          }
          out.printf(
              "an operator's revocation of one subject, %d installed decisions on %d PEPs (beside"
                  + " %d of another subject), %d rounds%n",
              decisions, peps, decisions, rounds);
          out.printf("  %-46s %9s %9s %9s%n", "", "p50 ms", "min ms", "max ms");
          row(out, "control interface round trip (a view, HTTPS)", view);
          row(out, "revoke command answered", command);
          row(out, "command sent -> last Remove at its PEP", lastRemove);
          out.printf(
              "  the other subject's decisions removed: %d (expected 0)%n", heard.bobRemoved.get());
          return heard.bobRemoved.get() == 0 ? 0 : 1;
        } finally {
          for (PepClient c : clients) {
            c.close();
          }
        }
      }
    } finally {
      Scratch.delete(dir);
    }
  }

  /** Every PEP asks its share of {@code subject}'s requests, handles {@code prefix + i}. */
  private void install(List<PepClient> clients, String prefix, String subject) throws Exception {
    List<CompletableFuture<PepDecision>> asked = new ArrayList<>(decisions);
    AccessRequest r = AccessRequest.access(subject, "ssh", AccessMode.READ);
    for (int i = 0; i < decisions; i++) {
      asked.add(clients.get(i % clients.size()).request(prefix + i, CTX, r));
    }
    for (CompletableFuture<PepDecision> f : asked) {
      if (!f.get(30, TimeUnit.SECONDS).granted()) {
        throw Cli.notDone(subject + "'s request was not granted: the bench's policy is wrong");
      }
    }
  }

  private static void post(HttpClient http, String url, String method) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw Cli.notDone(url + ": " + r.statusCode() + " " + r.body().strip());
    }
  }

  private static void row(PrintWriter out, String what, long[] nanos) {
    long[] s = nanos.clone();
    java.util.Arrays.sort(s);
    out.printf(
        "  %-46s %9.2f %9.2f %9.2f%n",
        what, Quantiles.at(s, 0.5) / 1e6, s[0] / 1e6, s[s.length - 1] / 1e6);
  }
}
