package dev.portcullis.pdp.cli;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Signals;
import java.net.InetAddress;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code pdp-server}: runs a COPS Policy Decision Point until stopped (Ctrl-C or SIGTERM). */
@Command(
    name = "pdp-server",
    mixinStandardHelpOptions = true,
    versionProvider = Cli.Version.class,
    subcommands = {
      VerifyAudit.class,
      IssueCredential.class,
      FleetCommands.Publish.class,
      FleetCommands.Status.class,
      ControlCommands.class,
      OperatorCertificate.class
    },
    description =
        "Runs a COPS Policy Decision Point (RFC 2748) with the configured policy engines.")
public final class PdpMain implements Callable<Integer> {
  @Mixin PdpConfigOption config;

  @Option(names = "--bind", description = "Address to listen on, overriding the file.")
  String bind;

  @Option(
      names = "--port",
      description = "TCP port to listen on, overriding the file (0: any free port).")
  Integer port;

  @Option(
      names = "--threads",
      defaultValue = "0",
      description = "Event-loop threads (default: 2 x cores).")
  int threads;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    Programs.start("dev/portcullis/pdp/cli/logback-pdp.xml");
    System.exit(Cli.of("pdp-server", new PdpMain()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    // Every argument is checked before anything is loaded or opened; then a failure to start goes
    // to Cli's handler: one line, the exit code of its cause, and nothing left behind.
    if (port != null && (port < 0 || port > 0xFFFF)) {
      throw Cli.usage("--port " + port + " (expected: 0 to 65535)");
    }
    if (threads < 0 || threads > 1024) {
      throw Cli.usage("--threads " + threads + " (expected: 0, the default, to 1024)");
    }
    PdpConfig c = PdpConfig.load(config.file);
    if (bind != null || port != null) {
      InetAddress a = bind == null ? c.address() : InetAddress.getByName(bind);
      c = c.withListen(a, port == null ? c.port() : port);
    }
    PdpServer server = PdpServer.start(c, threads);
    // Before "listening" is printed: whoever waits for that line may signal at once.
    Signals.on(
        "HUP",
        () -> {
          try {
            server.reloadAll();
          } catch (ConfigException e) {
            // logged by the server, which keeps the running policy
          }
          try {
            server.reloadCrypto();
          } catch (ConfigException e) {
            // logged by the registry, which keeps the running table
          }
        },
        LoggerFactory.getLogger(PdpMain.class));
    Programs.Stop stopped =
        Programs.closeOnStop(
            "pdp-shutdown",
            () -> {
              // SIGTERM: a fleet member first sends its PEPs to the others (docs/fleet.md);
              // decisions being made finish
              server.drain(server.config().drainTime());
              server.close();
            });
    spec.commandLine()
        .getOut()
        .println(
            "PDP listening on "
                + server.address().getAddress().getHostAddress()
                + ":"
                + server.address().getPort());
    spec.commandLine().getOut().flush();
    stopped.await();
    return 0;
  }
}
