package dev.portcullis.pdp.cli;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.fleet.FleetAudit;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code pdp-server verify-audit FILE}: checks an audit log's hash chain. */
@Command(
    name = "verify-audit",
    mixinStandardHelpOptions = true,
    description = {
      "Checks the hash chain of an audit log (the PDP's or the PEP proxy's) and names "
          + "the first broken record.",
      "Exit status: 0 intact, 1 broken, 2 unreadable."
    })
final class VerifyAudit implements Callable<Integer> {
  @Parameters(paramLabel = "FILE", description = "The audit log (JSON lines) to check.")
  Path file;

  @Option(
      names = "--head",
      paramLabel = "HASH",
      description =
          "A chain head the PDP logged when it stopped (kept elsewhere): checks that the file"
              + " still reaches it, i.e. no records were cut off the end.")
  String head;

  @Option(
      names = "--fleet",
      description =
          "Also check that the file reaches the chain head its PDP anchored in the fleet's"
              + " store (needs --config of a fleet member).")
  boolean fleet;

  @Option(
      names = {"-c", "--config"},
      defaultValue = Cli.CONF + "/pdp.xml",
      description = "With --fleet: a fleet member's configuration (default: ${DEFAULT-VALUE}).")
  Path config;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    if (head != null && !head.matches("[0-9a-fA-F]{64}")) {
      throw Cli.usage(
          "--head "
              + (head.length() > 80 ? head.substring(0, 80) + "..." : head)
              + " is not a chain head (expected: 64 hex digits, as the PDP logs at stop)");
    }
    AuditChain.Verdict v;
    try {
      if (Files.isDirectory(file)) {
        throw Cli.usage(file + " is a directory, not an audit log");
      }
      v = AuditChain.verify(file);
    } catch (NoSuchFileException e) {
      throw Cli.usage("no such file: " + file);
    } catch (IOException e) {
      throw Cli.usage("cannot read " + file + ": " + e.getMessage());
    }
    if (!v.intact()) {
      out.printf(
          "%s: BROKEN at line %d: %s (%d records before it are intact)%n",
          file, v.brokenLine(), v.problem(), v.records());
      return 1;
    }
    if (head != null) {
      long at;
      try {
        at = AuditChain.lineOf(file, head.toLowerCase(Locale.ROOT));
      } catch (IOException e) {
        throw Cli.usage("cannot read " + file + ": " + e.getMessage());
      }
      if (at == 0) {
        out.printf(
            "%s: BROKEN: the chain is intact over %d records but the expected head %s is not in"
                + " it: records were cut off the end (or the head belongs to another log)%n",
            file, v.records(), head);
        return 1;
      }
      out.printf(
          "%s: intact, %d records, head %s; the expected head is record %d%n",
          file, v.records(), v.head(), at);
      return 0;
    }
    if (fleet) {
      return checkAnchor(v, out);
    }
    out.printf("%s: intact, %d records, head %s%n", file, v.records(), v.head());
    return 0;
  }

  /** The fleet's anchor for this chain must be a record of the file. */
  private int checkAnchor(AuditChain.Verdict v, PrintWriter out) throws ConfigException {
    PdpConfig c = FleetCommands.fleetConfig(config);
    try (StateStore store = c.state().open()) {
      Optional<FleetAudit.Anchor> a = FleetAudit.anchorOf(store, file);
      if (a.isEmpty()) {
        out.printf(
            "%s: intact over %d records, but the fleet holds no anchor for this chain (its PDP"
                + " never anchored it, or the file's first record was replaced)%n",
            file, v.records());
        return 1;
      }
      long at = AuditChain.lineOf(file, a.get().head());
      if (at == 0) {
        out.printf(
            "%s: BROKEN: the chain is intact over %d records but does not reach the head %s that"
                + " %s anchored at %s: records were cut off the end%n",
            file, v.records(), a.get().head(), a.get().member(), a.get().at());
        return 1;
      }
      out.printf(
          "%s: intact, %d records, head %s; the fleet's anchor (%s, %s) is record %d%n",
          file, v.records(), v.head(), a.get().member(), a.get().at(), at);
      return 0;
    } catch (StoreException e) {
      throw Cli.usage("the fleet's state store: " + e.getMessage());
    } catch (IOException e) {
      throw Cli.usage("cannot read " + file + ": " + e.getMessage());
    }
  }
}
