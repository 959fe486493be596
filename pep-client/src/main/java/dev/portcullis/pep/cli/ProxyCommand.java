package dev.portcullis.pep.cli;

import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.proxy.PepProxy;
import dev.portcullis.pep.proxy.ProxyConfig;
import dev.portcullis.support.ConfigException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pep-client proxy}: the enforcing PEP in front of services (docs/pep-proxy.md). */
@Command(
    name = "proxy",
    mixinStandardHelpOptions = true,
    description = {
      "Put services under policy: accept each client connection, ask the PDP once, forward",
      "only after an Install, cut the connection on a Remove (docs/pep-proxy.md)."
    })
final class ProxyCommand implements Callable<Integer> {
  @Option(
      names = {"-c", "--config"},
      defaultValue = "config/pep-proxy.xml",
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
    PrintWriter err = spec.commandLine().getErr();
    ProxyConfig cfg;
    PepConfig pep;
    try {
      cfg = ProxyConfig.load(config);
      pep = PepConfig.load(cfg.pep());
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return 2;
    }
    PepProxy proxy;
    try {
      proxy = new PepProxy(cfg, pep.clientBuilder(), threads);
    } catch (IllegalStateException e) {
      pep.close();
      err.println("error: " + e.getMessage()); // a listener that cannot bind, named
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  proxy.close();
                  pep.close();
                  stopped.countDown();
                },
                "proxy-shutdown"));
    for (int i = 0; i < cfg.listeners().size(); i++) {
      InetSocketAddress a = proxy.addresses().get(i);
      ProxyConfig.Listener l = cfg.listeners().get(i);
      out.printf(
          "proxy %s listening on %s:%d in front of %s (service %s)%n",
          l.name(), a.getAddress().getHostAddress(), a.getPort(), l.upstream(), l.service());
    }
    out.flush();
    stopped.await();
    return 0;
  }
}
