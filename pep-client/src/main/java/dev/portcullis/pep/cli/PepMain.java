package dev.portcullis.pep.cli;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepEnrolment;
import dev.portcullis.pep.PepException;
import dev.portcullis.pep.sim.ClientSessions;
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
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pep-client}: ask a PDP for one decision, or run the session simulator. */
@Command(
    name = "pep-client",
    mixinStandardHelpOptions = true,
    version = "pep-client 0.1.0",
    description =
        "A COPS PEP: one decision, the session simulator, the enforcing proxy, or a tunnel agent.",
    subcommands = {
      PepMain.RequestCommand.class,
      PepMain.SimulateCommand.class,
      PepMain.EnrolCommand.class,
      ProxyCommand.class,
      TunnelAgentCommand.class,
      CommandLine.HelpCommand.class
    })
public final class PepMain implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start("dev/portcullis/pep/cli/logback-pep.xml");
    System.exit(Cli.of("pep-client", new PepMain()).execute(args));
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return 0;
  }

  private static void field(StringBuilder line, String name, Object value) {
    if (value != null) {
      line.append("  ").append(name).append('=').append(value);
    }
  }

  /** {@code --pdp HOST:PORT}, read by {@link dev.portcullis.support.HostPort#parse}. */
  static final class PdpAddress implements CommandLine.ITypeConverter<InetSocketAddress> {
    @Override
    public InetSocketAddress convert(String value) {
      try {
        InetSocketAddress u = dev.portcullis.support.HostPort.parse(value);
        return new InetSocketAddress(u.getHostString(), u.getPort());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  @Command(
      name = "request",
      mixinStandardHelpOptions = true,
      description = "Ask the PDP for one decision and print it.")
  static final class RequestCommand implements Callable<Integer> {
    @Mixin PdpTarget target;

    @Option(names = "--pep-id", defaultValue = "pep-cli", description = "PEPID to open with.")
    String pepId;

    @Option(
        names = "--operation",
        defaultValue = "ACCESS",
        description = "ACCESS, LOGIN, CHANGE_LEVEL or LOGOUT.")
    AccessOperation operation;

    @Option(names = "--subject", required = true, description = "Who asks.")
    String subject;

    @Option(names = "--service", description = "Service name.")
    String service;

    @Option(names = "--src", description = "Source address.")
    String src;

    @Option(names = "--dst", description = "Destination address.")
    String dst;

    @Option(names = "--dport", description = "Destination port.")
    Integer dport;

    @Option(names = "--protocol", description = "IP protocol number (6 TCP, 17 UDP).")
    Integer protocol;

    @Option(names = "--level", description = "Session level.")
    Integer level;

    @Option(names = "--requested-level", description = "Level asked for by CHANGE_LEVEL.")
    Integer requestedLevel;

    @Option(names = "--category", description = "Session category (repeatable).")
    List<String> categories = new ArrayList<>();

    @Option(names = "--mode", description = "READ, WRITE or READ_WRITE.")
    AccessMode mode;

    @Option(
        names = "--config",
        description =
            "pep.xml: PEP id, client type, PDP and security (TLS, Integrity); --pdp, --pep-id and"
                + " --client-type given on the command line win.")
    Path config;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      AccessRequest ar =
          new AccessRequest(
              operation,
              subject,
              level,
              categories,
              src == null ? null : InetAddress.getByName(src),
              null,
              dst == null ? null : InetAddress.getByName(dst),
              dport,
              protocol,
              service,
              mode,
              requestedLevel,
              null);
      int ct = target.clientType;
      List<InetSocketAddress> to = List.of(target.pdp);
      String id = pepId;
      final PepConfig cfg;
      try {
        cfg = config == null ? null : PepConfig.load(config);
      } catch (ConfigException e) {
        spec.commandLine().getErr().println("error: " + e.getMessage());
        return 2;
      }
      if (cfg != null) {
        var given = spec.commandLine().getParseResult();
        to = given.hasMatchedOption("--pdp") ? List.of(target.pdp) : cfg.pdps();
        id = given.hasMatchedOption("--pep-id") ? pepId : cfg.pepId();
        ct = given.hasMatchedOption("--client-type") ? target.clientType : cfg.clientType();
      }
      try (cfg;
          PepClient pep =
              PepClient.builder()
                  .pdps(to)
                  .pepId(id)
                  .clientType(ct)
                  .security(cfg == null ? null : cfg.security())
                  .requestTimeout(Duration.ofSeconds(10))
                  .build()) {
        pep.open().get(10, TimeUnit.SECONDS);
        PepDecision d =
            pep.request("cli-1", new Context(Context.R_INCOMING, 0), ar).get(10, TimeUnit.SECONDS);
        // Only what the decision carries: no "level=null" for a rule without levels.
        StringBuilder line = new StringBuilder(d.granted() ? "GRANTED" : "DENIED");
        field(line, "rule", d.data().ruleId());
        field(line, "reason", d.data().reason());
        field(line, "level", d.data().grantedLevel());
        Object validFor = d.data().validForSeconds();
        field(line, "valid-for", validFor == null ? null : validFor + "s");
        out.println(line);
        out.flush();
        return d.granted() ? 0 : 1;
      } catch (ExecutionException e) {
        Throwable c = e.getCause();
        spec.commandLine()
            .getErr()
            .println("error: " + (c instanceof PepException ? c.getMessage() : c.toString()));
        return 2;
      }
    }
  }

  @Command(
      name = "simulate",
      mixinStandardHelpOptions = true,
      description =
          "Run N sessions of OPN, CAT, REQ, DEC, CC against a PDP and time them (the COPS over TLS/IPsec paper).")
  static final class SimulateCommand implements Callable<Integer> {
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
        spec.commandLine()
            .getErr()
            .println("error: --sessions 1 to 1000000, --concurrency 1 to 10000");
        return 2;
      }
      InetSocketAddress to = target.pdp;
      int ct = target.clientType;
      PepConfig cfg;
      try {
        cfg = config == null ? null : PepConfig.load(config);
      } catch (ConfigException e) {
        spec.commandLine().getErr().println("error: " + e.getMessage());
        return Cli.USAGE;
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
          spec.commandLine()
              .getErr()
              .println(
                  "error: the first session against "
                      + dev.portcullis.support.HostPort.of(pdp)
                      + " failed: "
                      + probe.firstFailure()
                      + (secured
                          ? ""
                          : " (if the PDP takes TLS or Integrity, give --config a pep.xml that"
                              + " configures them)"));
          return Cli.FAILED;
        }
        started = System.currentTimeMillis();
        ProgressLine progress =
            new ProgressLine(spec.commandLine().getErr(), "simulate", "sessions", sessions);
        Simulator.Result r =
            sessions(secured, cfg, pdp, type, sessions, concurrency, progress::done);
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

  @Command(
      name = "enrol",
      mixinStandardHelpOptions = true,
      description = {
        "Enrol with a one-time credential (docs/tls.md): make a key pair, get a certificate for"
            + " this PEP id from the PDP over TLS, and store both where pep.xml's <tls"
            + " certificate=... key=...> name them."
      })
  static final class EnrolCommand implements Callable<Integer> {
    @Option(
        names = "--config",
        required = true,
        description = "pep.xml with <tls certificate=... key=... trust=...>.")
    Path config;

    @Option(
        names = "--credential-file",
        required = true,
        description =
            "File holding the credential pdp-server issue-credential printed (ID.SECRET); kept"
                + " off the command line, where other users could read it.")
    Path credentialFile;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      String token;
      try {
        token = Files.readString(credentialFile).trim();
      } catch (IOException e) {
        err.println("error: cannot read " + credentialFile + ": " + e.getMessage());
        return 2;
      }
      try (PepConfig cfg = PepConfig.load(config)) {
        var sec = cfg.security();
        if (sec == null || sec.tls() == null || sec.tls().development()) {
          err.println(
              "error: "
                  + config
                  + ": enrolment needs <tls certificate=... key=... trust=...>: where to store"
                  + " what it gets, and the CA that authenticates the PDP");
          return 2;
        }
        var r =
            PepEnrolment.enrol(
                cfg.pdp(),
                cfg.pepId(),
                sec.tls(),
                sec.tls().trust(),
                sec.authorisedPdps(),
                token,
                sec.tls().certificate(),
                sec.tls().key());
        out.printf(
            "enrolled %s: certificate serial %s, valid until %s; written to %s and %s%n",
            cfg.pepId(),
            r.certificate().getSerialNumber().toString(16),
            r.certificate().getNotAfter().toInstant(),
            r.certificateFile(),
            r.keyFile());
        out.flush();
        return 0;
      } catch (ConfigException e) {
        err.println("error: " + e.getMessage());
        return 2;
      } catch (PepException e) {
        err.println("error: " + e.getMessage());
        return 1;
      }
    }
  }
}
