package dev.portcullis.pep.cli;

import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pep.tunnel.TunnelAgent;
import dev.portcullis.pep.tunnel.TunnelAgentConfig;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Programs;
import dev.portcullis.tunnel.TunnelInstaller.Accounting;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pep-client tunnel-agent}: IPsec tunnels on the local charon, as the PDP grants them. */
@Command(
    name = "tunnel-agent",
    mixinStandardHelpOptions = true,
    description =
        "Run a tunnel agent (docs/tunnels.md): hold on the local strongSwan charon "
            + "exactly the IPsec tunnels the PDP grants; a gateway's agent stands by for them, "
            + "a user's agent asks for those its configuration names. Runs until SIGTERM, then "
            + "takes its tunnels down.")
final class TunnelAgentCommand implements Callable<Integer> {
  @Option(
      names = {"-c", "--config"},
      required = true,
      description =
          "The agent's configuration, a pep.xml with <tunnels>: a gateway's or a user's (the"
              + " samples: config/tunnel-gateway.xml, config/tunnel-client.xml).")
  Path config;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    TunnelAgentConfig cfg;
    try {
      cfg = TunnelAgentConfig.load(config);
    } catch (ConfigException e) {
      throw e;
    }
    TunnelAgent agent;
    try {
      agent =
          TunnelAgent.start(cfg.pep().clientBuilder(), cfg.vici(), cfg.timeout(), new Printed(out));
    } catch (IOException e) {
      cfg.pep().close();
      throw Cli.notDone(
          "charon's VICI socket "
              + cfg.vici()
              + " does not answer ("
              + e.getMessage()
              + "): is strongSwan's charon running with the vici plugin?");
    }
    Programs.Stop stopped =
        Programs.closeOnStop(
            "tunnel-agent-shutdown",
            () -> {
              agent.close(); // its tunnels come down: they are no longer the PDP's
              cfg.pep().close();
            });
    try {
      agent.open().get(30, TimeUnit.SECONDS);
      if (cfg.gateway() != null) {
        agent.serveGateway(cfg.gateway()).get(30, TimeUnit.SECONDS);
        out.printf(
            "tunnel agent %s: gateway %s stands by for its tunnels%n",
            cfg.pep().pepId(), cfg.gateway().gateway());
      }
      int i = 0;
      for (TunnelRequest r : cfg.tunnels()) {
        String id = agent.request("tunnel-" + i++, r).get(60, TimeUnit.SECONDS);
        out.printf(
            "tunnel %s up: %s through gateway %s (%s)%n",
            id,
            agent.inner(id) != null ? agent.inner(id) : r.innerPrefix(),
            r.gateway(),
            r.objective().name().toLowerCase(java.util.Locale.ROOT));
      }
      out.flush();
    } catch (ExecutionException e) {
      throw Cli.notDone(e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw Cli.notDone("no answer from the PDP at " + cfg.pep().pdp() + " in time");
    }
    stopped.await(); // until SIGTERM
    return Cli.OK;
  }

  /** What the operator reads of the tunnels' lives. */
  private record Printed(PrintWriter out) implements TunnelAgent.Listener {
    @Override
    public void up(String id) {
      out.printf("tunnel %s held by charon%n", id);
      out.flush();
    }

    @Override
    public void removed(String id, String reason, Accounting a) {
      out.printf(
          "tunnel %s removed (%s): %d bytes in, %d out, up %d s%n",
          id, reason, a.bytesIn(), a.bytesOut(), a.installedSeconds());
      out.flush();
    }

    @Override
    public void failed(String id, String why) {
      out.printf("tunnel %s down: %s%n", id, why);
      out.flush();
    }
  }
}
