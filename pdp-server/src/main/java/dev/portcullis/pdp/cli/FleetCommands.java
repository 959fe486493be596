package dev.portcullis.pdp.cli;

import dev.portcullis.cops.ClientTypes;
import dev.portcullis.pdp.FleetPolicies;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The fleet's policy commands (docs/fleet.md, "Policy versions"). */
final class FleetCommands {
  private FleetCommands() {}

  /** The PDP configuration, with a fleet store; else a usage mistake. */
  static PdpConfig fleetConfig(Path config) throws ConfigException {
    PdpConfig c = PdpConfig.load(config);
    if (c.state() == null || !c.state().zookeeper()) {
      throw Cli.usage(config + " has no <state store=\"zookeeper\" ...>: not a fleet");
    }
    return c;
  }

  @Command(
      name = "publish-policy",
      mixinStandardHelpOptions = true,
      description =
          "Publishes a policy file to the fleet: every PDP of it loads the new version and "
              + "pushes unsolicited decisions for exactly the changed ones. The file is checked "
              + "here first.")
  static final class Publish implements Callable<Integer> {
    @Option(
        names = {"-c", "--config"},
        defaultValue = Cli.CONF + "/pdp.xml",
        description = "A fleet member's configuration (default: ${DEFAULT-VALUE}).")
    Path config;

    @Option(
        names = "--client-type",
        required = true,
        description = "The client type the policy is for, decimal or 0x hex.")
    String clientType;

    @Parameters(index = "0", paramLabel = "FILE", description = "The policy file.")
    Path file;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PdpConfig c = fleetConfig(config);
      int type;
      try {
        type = Integer.decode(clientType);
      } catch (NumberFormatException e) {
        throw Cli.usage("--client-type " + clientType + " (expected: e.g. 0xC0A6)");
      }
      PdpConfig.ClientTypeConfig ct = c.clientTypes().get(type);
      if (ct == null) {
        throw Cli.usage(
            "--client-type "
                + clientType
                + ": not served in "
                + config
                + " (served: "
                + c.clientTypes().keySet().stream().map(ClientTypes::hex).toList()
                + ")");
      }
      PolicyEngineProvider provider = PolicyEngineProvider.named(ct.engine());
      byte[] policy;
      try {
        policy = Files.readAllBytes(file);
        provider.load(file, null); // refused here, with file and line, before the fleet sees it
      } catch (IOException e) {
        throw Cli.usage(file + ": " + e.getMessage());
      } catch (ConfigException e) {
        throw Cli.notDone(e.getMessage());
      }
      try (StateStore store = c.state().open()) {
        int v = FleetPolicies.publish(store, type, policy);
        out.printf(
            "published %s for client type 0x%04X as version %d in %s%n",
            file, type, v, store.describe());
        out.flush();
        return 0;
      } catch (StoreException e) {
        throw Cli.notDone("the fleet's state store: " + e.getMessage());
      }
    }
  }

  @Command(
      name = "fleet-status",
      mixinStandardHelpOptions = true,
      description = "Shows the fleet's published policy versions and which member runs which.")
  static final class Status implements Callable<Integer> {
    @Option(
        names = {"-c", "--config"},
        defaultValue = Cli.CONF + "/pdp.xml",
        description = "A fleet member's configuration (default: ${DEFAULT-VALUE}).")
    Path config;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PdpConfig c = fleetConfig(config);
      try (StateStore store = c.state().open()) {
        Map<String, List<String>> status = FleetPolicies.status(store);
        out.println("fleet " + store.describe());
        if (status.isEmpty()) {
          out.println("  no policy published yet");
        }
        status.forEach(
            (type, lines) -> {
              out.println("client type " + type);
              lines.forEach(l -> out.println("  " + l));
            });
        out.flush();
        return 0;
      } catch (StoreException e) {
        throw Cli.notDone("the fleet's state store: " + e.getMessage());
      }
    }
  }
}
