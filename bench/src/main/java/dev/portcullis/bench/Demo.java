package dev.portcullis.bench;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.cli.PdpConfigOption;
import dev.portcullis.pdp.connection.PdpTimings;
import dev.portcullis.pep.sim.SessionTimes;
import dev.portcullis.pep.sim.SimulationReport;
import dev.portcullis.pep.sim.Simulator;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Programs;
import dev.portcullis.support.ProgressLine;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The main job: starts a PDP on 127.0.0.1 with the given configuration, runs the session simulator
 * against it (the COPS over TLS/IPsec paper: OPN, CAT, REQ, DEC, CC per session), prints the
 * timings as seen by the PEP and by the PDP, and stops the PDP.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description =
        "Start a PDP on loopback, simulate PEP sessions against it, print both sides' timings.")
public final class Demo implements Callable<Integer> {
  @Mixin PdpConfigOption config;

  @Option(
      names = "--sessions",
      defaultValue = "200",
      description = "Measured sessions (default: ${DEFAULT-VALUE}).")
  int sessions;

  @Option(
      names = "--warmup",
      defaultValue = "100",
      description = "Sessions run first and not counted (default: ${DEFAULT-VALUE}).")
  int warmup;

  @Option(
      names = "--json",
      description = "Also write both sides' results, with every sample, to this file.")
  Path json;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start(null);
    System.exit(Cli.of("demo", new Demo()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PdpServer pdp;
    try {
      PdpConfig c = PdpConfig.load(config.file).withListen(InetAddress.getLoopbackAddress(), 0);
      pdp = PdpServer.start(c, 1);
    } catch (ConfigException | IOException e) {
      spec.commandLine().getErr().println("error: " + e.getMessage());
      return 2;
    }
    try (pdp;
        Simulator sim = new Simulator(pdp.address(), 0xC0A5)) {
      out.printf("PDP started on %s with %s%n", pdp.address(), config.file);
      if (warmup > 0) {
        sim.run(warmup, 1, 30);
      }
      PdpTimings timings = pdp.enableTimings();
      ProgressLine progress =
          new ProgressLine(spec.commandLine().getErr(), "demo", "sessions", sessions);
      Simulator.Result r = sim.run(sessions, 1, 30, progress::done);
      List<SessionTimes> pep = List.of(r.connect(), r.open(), r.request(), r.session());
      List<SessionTimes> pdpSide = new ArrayList<>();
      for (PdpTimings.Phase p : PdpTimings.Phase.values()) {
        pdpSide.add(new SessionTimes(p.label(), timings.samples(p)));
      }
      SimulationReport.print(
          out,
          String.format(
              "%n%d sessions (after %d warm-up), one at a time, PEP side:", sessions, warmup),
          pep);
      SimulationReport.print(out, "PDP side:", pdpSide);
      out.printf(
          "failures: %d%s%n",
          r.failures(), r.failures() > 0 ? " (first: " + r.firstFailure() + ")" : "");
      out.printf("PDP: %s%n", pdp.stats().summary());
      if (json != null) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("config", config.file.toString());
        meta.put("sessions", sessions);
        meta.put("warmup", warmup);
        meta.put("failures", r.failures());
        SimulationReport.writeJson(json, meta, Map.of("pep", pep, "pdp", pdpSide));
        out.println("results written to " + json);
      }
      out.flush();
      return r.failures() == 0 ? 0 : 1;
    }
  }
}
