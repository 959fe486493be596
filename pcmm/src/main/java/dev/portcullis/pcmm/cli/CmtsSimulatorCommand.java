package dev.portcullis.pcmm.cli;

import dev.portcullis.pcmm.cmts.CmtsSimulator;
import dev.portcullis.support.Cli;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Programs;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code pcmm-server cmts-simulator}: simulated CMTSs to try a policy server against. */
@Command(
    name = "cmts-simulator",
    mixinStandardHelpOptions = true,
    description =
        "Runs simulated CMTSs (written from the PCMM specification) until stopped: each takes a"
            + " policy server's connection, opens with Client-Open, and answers gate control as a"
            + " CMTS does. For trying a policy server; not a CMTS.")
final class CmtsSimulatorCommand implements Callable<Integer> {
  @Option(
      names = "--listen",
      required = true,
      description =
          "Where a simulated CMTS listens: a literal address and port (3918 is PCMM's); repeat for"
              + " more (cmts-1, cmts-2, ... in order).")
  List<String> listen;

  @Option(
      names = "--service-classes",
      split = ",",
      defaultValue = "VoIP_UP,VoIP_DN,BE",
      description = "The service classes provisioned on each (default: ${DEFAULT-VALUE}).")
  List<String> serviceClasses;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    List<InetSocketAddress> addresses = new ArrayList<>();
    for (String l : listen) {
      InetSocketAddress u;
      try {
        u = HostPort.parse(l);
      } catch (IllegalArgumentException e) {
        u = null;
      }
      if (u == null || !u.getHostString().matches("[0-9A-Fa-f:.]+")) {
        throw Cli.usage(
            "--listen " + l + " (expected: a literal address and a port, e.g. 127.0.0.1:3918)");
      }
      addresses.add(new InetSocketAddress(InetAddress.getByName(u.getHostString()), u.getPort()));
    }
    CmtsSimulator.Profile p = CmtsSimulator.Profile.DEFAULT;
    CmtsSimulator sim =
        new CmtsSimulator(
            addresses,
            new CmtsSimulator.Profile(
                Set.copyOf(serviceClasses), p.gatesPerSubscriber(), p.major(), p.minor(), true));
    Programs.Stop stopped = Programs.closeOnStop("cmts-simulator-shutdown", sim);
    for (CmtsSimulator.Cmts c : sim.cmtss()) {
      spec.commandLine().getOut().println(c.name() + " listening on " + HostPort.of(c.address()));
    }
    spec.commandLine().getOut().flush();
    stopped.await();
    return 0;
  }
}
