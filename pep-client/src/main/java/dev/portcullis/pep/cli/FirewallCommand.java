package dev.portcullis.pep.cli;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.firewall.FirewallConfig;
import dev.portcullis.pep.firewall.FirewallMetrics;
import dev.portcullis.pep.firewall.HostFirewall;
import dev.portcullis.support.Cli;
import dev.portcullis.support.HostPort;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pep-client firewall}: enforcement in this host's kernel (docs/host-firewall.md). */
@Command(
    name = "firewall",
    mixinStandardHelpOptions = true,
    description =
        "Put this host's services under policy in its kernel: ask the PDP at each new flow's "
            + "first packet, let allowed flows through, end revoked ones (docs/host-firewall.md).")
final class FirewallCommand implements Callable<Integer> {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(FirewallCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = {"-c", "--config"},
      defaultValue = Cli.CONF + "/firewall.xml",
      description = "The firewall's configuration (default: ${DEFAULT-VALUE}).")
  Path config;

  @Override
  public Integer call() throws Exception {
    // Every failure to start goes to Cli's handler: one line and the exit code of its cause.
    FirewallConfig cfg = FirewallConfig.load(config);
    PepConfig pepConfig = PepConfig.load(cfg.pep());
    HostFirewall.Removals removals = new HostFirewall.Removals();
    PepClient pep = pepConfig.clientBuilder().listener(removals).build();
    AuditLog audit;
    try {
      audit = cfg.audit() == null ? AuditLog.NONE : AuditLog.open(cfg.audit());
    } catch (java.io.IOException | RuntimeException e) {
      pep.close();
      pepConfig.close(); // owned by another process, or not writable
      throw e;
    }
    HostFirewall firewall;
    try {
      firewall = HostFirewall.start(cfg.settings(), pep, removals, audit, null);
    } catch (RuntimeException | java.io.IOException e) {
      audit.abandon(); // a firewall that never started leaves no log
      pep.close();
      pepConfig.close();
      throw e;
    }
    MetricsEndpoint metrics = null;
    if (cfg.metrics() != null) {
      try {
        metrics = FirewallMetrics.open(cfg.metrics(), firewall, audit);
      } catch (java.io.IOException | RuntimeException e) {
        firewall.close(); // the address, named
        audit.abandon();
        pep.close();
        pepConfig.close();
        throw e;
      }
    }
    MetricsEndpoint m = metrics;
    PrintWriter out = spec.commandLine().getOut();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (m != null) {
                    m.close();
                  }
                  firewall.close(); // the rules and the table removed
                  log.info("firewall stopped: {}", firewall.counters());
                  audit.close();
                  pep.close();
                  pepConfig.close();
                  stopped.countDown();
                },
                "firewall-shutdown"));
    for (HostFirewall.Service s : cfg.services()) {
      out.printf(
          "firewall: %s:%d under policy (service %s)%n",
          s.address().getHostAddress(), s.port(), s.name());
    }
    if (m != null) {
      out.printf("firewall: metrics on http://%s/metrics%n", HostPort.of(m.address()));
    }
    out.printf("firewall: waiting for the PDP at %s%n", HostPort.of(pep.pdp()));
    out.flush();
    // a firewall started before its PDP keeps asking; new flows are refused until one accepts
    pep.openUntilAccepted(
            (e, first) -> {
              if (first) {
                out.printf(
                    "firewall: no PDP yet (%s): new flows are refused until one accepts; trying"
                        + " again every few seconds%n",
                    Cli.message(e));
                out.flush();
              }
            })
        .thenRun(
            () -> {
              out.printf("firewall: ready: the PDP at %s decides%n", HostPort.of(pep.pdp()));
              out.flush();
            });
    stopped.await(); // SIGTERM
    return Cli.OK;
  }
}
