package dev.portcullis.pep.cli;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.proxy.PepProxy;
import dev.portcullis.pep.proxy.ProxyConfig;
import dev.portcullis.pep.proxy.ProxyMetrics;
import dev.portcullis.support.Cli;
import dev.portcullis.support.HostPort;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pep-client proxy}: the enforcing PEP in front of services (docs/pep-proxy.md). */
@Command(
    name = "proxy",
    mixinStandardHelpOptions = true,
    description =
        "Put services under policy: accept each client connection, ask the PDP once, "
            + "forward only after an Install, cut the connection on a Remove "
            + "(docs/pep-proxy.md).")
final class ProxyCommand implements Callable<Integer> {
  @Option(
      names = {"-c", "--config"},
      defaultValue = Cli.CONF + "/pep-proxy.xml",
      description = "The proxy's configuration (default: ${DEFAULT-VALUE}).")
  Path config;

  @Option(
      names = "--threads",
      defaultValue = "0",
      description = "Event-loop threads for the proxied connections (default: 2 x cores).")
  int threads;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    // Every failure to start goes to Cli's handler: one line, the exit code of its cause (a file
    // in use or an address that cannot be bound: 2), after what was opened is closed.
    ProxyConfig cfg = ProxyConfig.load(config);
    PepConfig pep = PepConfig.load(cfg.pep());
    AuditLog audit;
    try {
      audit =
          pep.registry() == null
              ? AuditLog.open(cfg.audit())
              : AuditLog.open(
                  cfg.audit(), Duration.ZERO, pep.registry().digester(Algorithm.SHA_256));
    } catch (IOException | RuntimeException e) {
      pep.close(); // owned by another process, or not writable
      throw e;
    }
    PepProxy proxy;
    try {
      proxy = new PepProxy(cfg, pep.clientBuilder(), threads, audit);
    } catch (RuntimeException e) {
      audit.abandon(); // a listener that cannot bind, named: the failed start leaves no log
      pep.close();
      throw e;
    }
    MetricsEndpoint metrics = null;
    if (cfg.metrics() != null) {
      try {
        metrics = ProxyMetrics.open(cfg.metrics(), proxy, audit);
      } catch (IOException | RuntimeException e) {
        proxy.close(); // the address, named
        audit.abandon();
        pep.close();
        throw e;
      }
    }
    MetricsEndpoint m = metrics;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  // SIGTERM: no new connections; the open ones get <shutdown drain> to end
                  proxy.drain(cfg.drain());
                  if (m != null) {
                    m.close();
                  }
                  proxy.close();
                  audit.close();
                  pep.close();
                },
                "proxy-shutdown"));
    for (int i = 0; i < cfg.listeners().size(); i++) {
      InetSocketAddress a = proxy.addresses().get(i);
      ProxyConfig.Listener l = cfg.listeners().get(i);
      out.printf(
          "proxy %s listening on %s in front of %s (service %s)%n",
          l.name(), HostPort.of(a), HostPort.of(l.upstream()), l.service());
    }
    // Until its PDP accepts the PEP, every connection is refused: say so, then say when it serves
    // (a script waits for the "ready" line rather than race the PDP).
    if (!proxy.isReady()) {
      out.printf("proxy: waiting for the PDP at %s%n", HostPort.of(proxy.pep().pdp()));
    }
    out.flush();
    proxy
        .ready()
        .thenRun(
            () -> {
              out.printf("proxy: ready: the PDP at %s decides%n", HostPort.of(proxy.pep().pdp()));
              out.flush();
            });
    proxy.stopped().join(); // SIGTERM, or the proxy stopped itself (an audit it cannot write)
    return audit.failure() == null ? Cli.OK : Cli.FAILED;
  }
}
