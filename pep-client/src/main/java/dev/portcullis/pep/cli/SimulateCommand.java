package dev.portcullis.pep.cli;

import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.sim.ClientSessions;
import dev.portcullis.pep.sim.SessionTimes;
import dev.portcullis.pep.sim.SimulationReport;
import dev.portcullis.pep.sim.Simulator;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ProgressLine;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code pep-client simulate}: the session simulator, the COPS over TLS/IPsec paper's five-message
 * sessions timed (docs/pep-client.md).
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description =
        "Run N sessions of OPN, CAT, REQ, DEC, CC against a PDP and time them (the COPS over TLS/IPsec paper).")
final class SimulateCommand implements Callable<Integer> {
  @Mixin PdpTarget target;

  @Option(
      names = "--sessions",
      defaultValue = "200",
      description = "Sessions to run (default: ${DEFAULT-VALUE}).")
  int sessions;

  @Option(
      names = "--concurrency",
      defaultValue = "1",
      description = "Sessions at a time (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--json",
      description = "Also write the results, with every sample, to this file.")
  Path json;

  @Option(
      names = "--pdp-audit",
      description =
          "The PDP's audit file (its <audit file=...>), to report the PDP side of the same"
              + " sessions too; the PDP must run on this host with audit on.")
  Path pdpAudit;

  @Option(
      names = "--config",
      description =
          "pep.xml: the PDP, client type and security; with TLS or Integrity configured each"
              + " session is made by the PEP client with them (--pdp and --client-type given on"
              + " the command line win).")
  Path config;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (sessions < 1 || sessions > 1_000_000 || concurrency < 1 || concurrency > 10_000) {
      throw Cli.usage("--sessions 1 to 1000000, --concurrency 1 to 10000");
    }
    InetSocketAddress to = target.pdp;
    int ct = target.clientType;
    PepConfig cfg;
    try {
      cfg = config == null ? null : PepConfig.load(config);
    } catch (ConfigException e) {
      throw e;
    }
    var given = spec.commandLine().getParseResult();
    if (cfg != null) {
      to = given.hasMatchedOption("--pdp") ? target.pdp : cfg.pdp();
      ct = given.hasMatchedOption("--client-type") ? target.clientType : cfg.clientType();
    }
    boolean secured = cfg != null && cfg.security() != null;
    InetSocketAddress pdp = to;
    int type = ct;
    PrintWriter out = spec.commandLine().getOut();
    long started = System.currentTimeMillis();
    try {
      // One session first: a PDP that is not there, wants TLS, or refuses this PEP fails it, and
      // the reason is printed instead of a table of zeros.
      Simulator.Result probe = sessions(secured, cfg, pdp, type, 1, 1, n -> {});
      if (probe.failures() > 0) {
        throw Cli.notDone(
            "the first session against "
                + dev.portcullis.support.HostPort.of(pdp)
                + " failed: "
                + probe.firstFailure()
                + (secured
                    ? ""
                    : " (if the PDP takes TLS or Integrity, give --config a pep.xml that"
                        + " configures them)"));
      }
      started = System.currentTimeMillis();
      ProgressLine progress =
          new ProgressLine(spec.commandLine().getErr(), "simulate", "sessions", sessions);
      Simulator.Result r = sessions(secured, cfg, pdp, type, sessions, concurrency, progress::done);
      return report(out, r, pdp, started);
    } finally {
      if (cfg != null) {
        cfg.close();
      }
    }
  }

  private static Simulator.Result sessions(
      boolean secured,
      PepConfig cfg,
      InetSocketAddress pdp,
      int type,
      int n,
      int at,
      IntConsumer progress)
      throws InterruptedException {
    if (secured) {
      return ClientSessions.run(
          () -> cfg.clientBuilder().pdp(pdp).clientType(type), n, at, 30, progress);
    }
    try (Simulator sim = new Simulator(pdp, type)) {
      return sim.run(n, at, 30, progress);
    }
  }

  private int report(PrintWriter out, Simulator.Result r, InetSocketAddress to, long started)
      throws Exception {
    List<SessionTimes> pepSide = new ArrayList<>();
    for (SessionTimes t : new SessionTimes[] {r.connect(), r.open(), r.request(), r.session()}) {
      if (t != null) {
        pepSide.add(t);
      }
    }
    SimulationReport.print(
        out,
        String.format(
            "%d sessions against %s, %d at a time, PEP side:",
            sessions, dev.portcullis.support.HostPort.of(to), concurrency),
        pepSide);
    List<SessionTimes> pdpSide = List.of();
    if (pdpAudit != null) {
      pdpSide = SimulationReport.fromAudit(pdpAudit, started, "sim-pep-");
      SimulationReport.print(out, "PDP side (from " + pdpAudit + "):", pdpSide);
    }
    if (r.failures() > 0) {
      out.printf("  %d sessions failed; first: %s%n", r.failures(), r.firstFailure());
    }
    if (json != null) {
      Map<String, Object> meta = new LinkedHashMap<>();
      meta.put("pdp", to.toString());
      meta.put("sessions", sessions);
      meta.put("concurrency", concurrency);
      meta.put("failures", r.failures());
      SimulationReport.writeJson(json, meta, Map.of("pep", pepSide, "pdp", pdpSide));
      out.println("  results written to " + json);
    }
    out.flush();
    return r.failures() == 0 ? 0 : 1;
  }
}
