package dev.portcullis.bench;

import dev.portcullis.bench.cost.Stats;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Scratch;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The PDP beside Open Policy Agent on the same decisions, in one run on loopback: OPA's HTTP API
 * serving {@code opa/portcullis.rego} (config/policy-rules.xml in Rego, first match wins, each
 * decision with its rule and reason) loaded by {@code wrk}, and the PDP serving the rules policy
 * loaded by the C generator of {@link CPrograms}, with the same access request. Two shapes: 16
 * connections with one request each outstanding (wrk -c16), and each side's best (OPA with 64
 * connections on two wrk threads, the PDP pipelined 2 x 32). Rounds alternate the four cells; each
 * ratio is the median of the rounds' ratios.
 */
@Command(
    name = "opa-compare",
    mixinStandardHelpOptions = true,
    description = "Decisions per second: the PDP against OPA's HTTP API on the same policy.")
public final class OpaCompare implements Callable<Integer> {
  @Option(
      names = "--seconds",
      defaultValue = "5",
      description = "Measured seconds of each cell (default: ${DEFAULT-VALUE}).")
  int seconds;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      description = "Rounds the cells take turns in (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--pdp-threads",
      defaultValue = "2",
      description = "PDP event loops (OPA uses every core; default: ${DEFAULT-VALUE}).")
  int pdpThreads;

  @Option(
      names = "--policy",
      defaultValue = "config/policy-rules.xml",
      description =
          "The PDP's rules (what opa/portcullis.rego restates; default: ${DEFAULT-VALUE}).")
  Path policy;

  /** The access request of {@link PdpLoad#request}, as OPA's input. */
  static final String INPUT =
      "{\"input\":{\"operation\":\"ACCESS\",\"subject\":\"alice\",\"level\":2,"
          + "\"categories\":[\"nat\"],\"source\":\"192.0.2.1\",\"sourcePort\":50000,"
          + "\"destination\":\"10.1.2.3\",\"destinationPort\":22,\"protocol\":\"tcp\","
          + "\"service\":\"ssh\",\"mode\":\"READ\"}}";

  @Spec CommandSpec spec;

  private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("opa-compare", new OpaCompare()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Path opa =
        Executables.find("opa", Path.of(System.getProperty("user.home"), "go", "bin", "opa"));
    Path wrk = Executables.find("wrk");
    String noC = CPrograms.why();
    if (opa == null || wrk == null || noC != null) {
      out.println(
          "nothing to compare with: "
              + (opa == null
                  ? "no opa on the PATH or in ~/go/bin (go install"
                      + " github.com/open-policy-agent/opa@v1.22.3)"
                  : wrk == null ? "no wrk on the PATH (apt-get install wrk)" : noC));
      return 1;
    }
    Path dir = Files.createTempDirectory("opa-compare");
    try {
      return compare(opa, wrk, dir, out);
    } finally {
      Scratch.delete(dir);
    }
  }

  private int compare(Path opa, Path wrk, Path dir, PrintWriter out) throws Exception {
    Path rego = dir.resolve("portcullis.rego");
    try (InputStream in = OpaCompare.class.getResourceAsStream("/opa/portcullis.rego")) {
      Files.copy(in, rego);
    }
    Path lua = dir.resolve("post.lua");
    Files.writeString(
        lua,
        "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\n"
            + "wrk.body = '"
            + INPUT
            + "'\n");
    CPrograms c = CPrograms.build(dir);
    byte[] opn = CopsCodec.encode(ClientOpen.of(AccessRequest.CLIENT_TYPE, "opa-compare"));
    int reqLength = PdpLoad.request(0).length;
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    URI decision = URI.create("http://127.0.0.1:" + port + "/v1/data/portcullis/decision");
    Process server =
        new ProcessBuilder(
                opa.toString(),
                "run",
                "--server",
                "--addr",
                "127.0.0.1:" + port,
                "--log-level",
                "error",
                rego.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("opa.log").toFile())
            .start();
    try (PdpServer pdp =
        PdpServer.start(PdpLoad.config("opa-compare", "rules", policy), pdpThreads)) {
      String answer = firstAnswer(decision, server, dir);
      out.println("OPA " + version(opa) + ", " + wrk.getFileName() + "; OPA answers " + answer);
      InetSocketAddress at = pdp.address();
      byte[] one = LoopbackLoad.requests(1, reqLength);
      byte[] window = LoopbackLoad.requests(32, reqLength);
      double[][] rate = new double[4][rounds];
      long ms = seconds * 1000L;
      for (int r = 0; r < rounds; r++) {
        rate[0][r] = wrk(wrk, lua, decision, 1, 16);
        rate[1][r] = c.rate(at, opn, one, 1, 16, 500, ms).perSecond();
        rate[2][r] = wrk(wrk, lua, decision, 2, 64);
        rate[3][r] = c.rate(at, opn, window, 32, 2, 500, ms).perSecond();
      }
      String[] names = {
        "OPA, wrk -t1 -c16",
        "PDP, 16 connections x 1",
        "OPA, wrk -t2 -c64",
        "PDP, 2 connections x 32"
      };
      out.printf(
          "decisions/s, %d rounds of %d s alternating; PDP %d event loop(s), rules engine:%n",
          rounds, seconds, pdpThreads);
      for (int i = 0; i < 4; i++) {
        Stats s = Stats.of(rate[i]);
        out.printf(
            Locale.ROOT,
            "  %-28s %,12.0f  (rounds %,.0f to %,.0f)%n",
            names[i],
            s.median(),
            s.min(),
            s.max());
      }
      double[] same = new double[rounds];
      double[] best = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        same[r] = rate[1][r] / rate[0][r];
        best[r] = rate[3][r] / Math.max(rate[0][r], rate[2][r]);
      }
      out.printf(
          Locale.ROOT,
          "  PDP / OPA, 16 connections x 1: %.1fx; PDP pipelined / OPA's best: %.1fx"
              + " (medians of the rounds' ratios)%n",
          Stats.of(same).median(),
          Stats.of(best).median());
      out.flush();
      return 0;
    } finally {
      Children.stop(server, Duration.ofSeconds(5));
    }
  }

  /** OPA's answer to {@link #INPUT}, once it listens (within 20 s). */
  private static String firstAnswer(URI decision, Process server, Path dir) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    HttpRequest post =
        HttpRequest.newBuilder(decision)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(INPUT))
            .build();
    for (int i = 0; i < 200; i++) {
      if (!server.isAlive()) {
        throw new IOException("opa exited: " + Files.readString(dir.resolve("opa.log")).strip());
      }
      try {
        HttpResponse<String> r = http.send(post, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return r.body();
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(100); // polling a child process's start: nothing to wait on but its port
    }
    throw new IOException("opa did not answer within 20 s");
  }

  /** {@code wrk}'s requests per second against {@code url} over {@link #seconds}. */
  private double wrk(Path wrk, Path lua, URI url, int threads, int connections)
      throws IOException, InterruptedException {
    String out =
        Children.output(
            List.of(
                wrk.toString(),
                "-t" + threads,
                "-c" + connections,
                "-d" + seconds + "s",
                "-s",
                lua.toString(),
                url.toString()),
            Duration.ofSeconds(seconds + 30L));
    Matcher m = RATE.matcher(out);
    if (!m.find() || out.contains("Non-2xx")) {
      throw new IOException("wrk: " + out.strip());
    }
    return Double.parseDouble(m.group(1));
  }

  private static String version(Path opa) {
    String out = Children.version(List.of(opa.toString(), "version"));
    return out == null
        ? "(version unknown)"
        : out.lines()
            .filter(l -> l.startsWith("Version:"))
            .map(l -> l.substring("Version:".length()).strip())
            .findFirst()
            .orElse("(version unknown)");
  }
}
