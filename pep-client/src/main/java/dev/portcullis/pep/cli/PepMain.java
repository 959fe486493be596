package dev.portcullis.pep.cli;

import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code pep-client}: its subcommands, each in a file of its own: one decision, the session
 * simulator, enrolment, the enforcing proxy, the tunnel agent.
 */
@Command(
    name = "pep-client",
    mixinStandardHelpOptions = true,
    versionProvider = Cli.Version.class,
    description =
        "A COPS PEP: one decision, the session simulator, the enforcing proxy, the host firewall,"
            + " or a tunnel agent.",
    subcommands = {
      RequestCommand.class,
      SimulateCommand.class,
      EnrolCommand.class,
      ProxyCommand.class,
      FirewallCommand.class,
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
    throw Cli.commandNeeded(spec);
  }
}
