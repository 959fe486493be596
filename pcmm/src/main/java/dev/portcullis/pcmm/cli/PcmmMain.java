package dev.portcullis.pcmm.cli;

import dev.portcullis.pcmm.PcmmServer;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Signals;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pcmm-server}: the PacketCable Multimedia policy server, until stopped (Ctrl-C or SIGTERM);
 * SIGHUP reads the policy and limits again and deletes the gates they no longer allow.
 */
@Command(
    name = "pcmm-server",
    mixinStandardHelpOptions = true,
    versionProvider = Cli.Version.class,
    subcommands = {CmtsSimulatorCommand.class},
    description =
        "Runs a PacketCable Multimedia policy server: connects to its CMTSs (COPS, client type"
            + " 0x800A) and sets the gates application managers ask for and the policy allows.")
public final class PcmmMain implements Callable<Integer> {
  @Option(
      names = {"-c", "--config"},
      defaultValue = Cli.CONF + "/pcmm.xml",
      description = "Policy server configuration (default: ${DEFAULT-VALUE}).")
  Path config;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // the commands' log format, shared with pdp-server (this module depends on it)
    Programs.start("dev/portcullis/pcmm/cli/logback-pcmm.xml");
    System.exit(Cli.of("pcmm-server", new PcmmMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    // not a static field: logging starts after main() has chosen the command's configuration
    Logger log = LoggerFactory.getLogger(PcmmMain.class);
    PcmmServer server = PcmmServer.start(config);
    Signals.on(
        "HUP",
        () -> {
          try {
            server.reload();
          } catch (ConfigException e) {
            log.warn("policy not reloaded, the one in use stays: {}", e.getMessage());
          }
        },
        log);
    Programs.Stop stopped = Programs.closeOnStop("pcmm-shutdown", server);
    server.stopped().whenComplete((v, e) -> stopped.release()); // stopped on its own (audit)
    // the CMTSs connect in their own time; each is said in the log as it opens
    spec.commandLine()
        .getOut()
        .println(
            "pcmm-server: started, CMTSs "
                + server.server().cmtss()
                + (server.http() == null
                    ? ""
                    : ", http://" + HostPort.of(server.http().address()) + "/gates"));
    spec.commandLine().getOut().flush();
    stopped.await();
    return 0;
  }
}
