package dev.portcullis.crypto.cli;

import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.ProviderDirectory;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.kat.KnownAnswers;
import dev.portcullis.crypto.kat.SelfTestResult;
import dev.portcullis.support.Cli;
import dev.portcullis.support.Programs;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code portcullis-crypto}: inspect and test the crypto provider table. */
@Command(
    name = "portcullis-crypto",
    mixinStandardHelpOptions = true,
    versionProvider = Cli.Version.class,
    description = "Shows which JCE provider serves each algorithm and why, and runs self-tests.",
    subcommands = {
      CryptoMain.Status.class,
      CryptoMain.SelfTest.class,
      FirstUseCommand.class,
      CommandLine.HelpCommand.class
    })
public final class CryptoMain implements Callable<Integer> {
  /** Exit status for a configuration the user must fix. */
  static final int EXIT_CONFIG = Cli.USAGE; // what a test expects of a table that does not load

  /** Exit status for a provider that failed a known-answer test. */
  static final int EXIT_SELF_TEST = Cli.FAILED;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    quietLogging();
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return Cli.of("portcullis-crypto", new CryptoMain());
  }

  /**
   * The CLI's log format, unless the user chose one: set before the first logger exists, and never
   * shipped as {@code logback.xml}, which would reconfigure every application embedding this
   * library.
   */
  static void quietLogging() {
    Programs.start("dev/portcullis/crypto/cli/logback-cli.xml");
  }

  @Override
  public Integer call() throws Exception {
    throw Cli.commandNeeded(spec);
  }

  /** Prints the provider table for a configuration file. */
  @Command(
      name = "status",
      description = "Build the provider table from a config file and print it.")
  static final class Status implements Callable<Integer> {
    @Mixin ProviderTableOption table;

    @Option(
        names = "--all-providers",
        description = "Also run every algorithm's known-answer tests against every provider.")
    boolean allProviders;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      try (CryptoRegistry r = CryptoRegistry.open(table.config)) {
        out.print(r.status().format());
        out.flush();
        if (allProviders) {
          return SelfTest.matrix(r.directory(), out);
        }
        return 0;
      } // a table that does not load: Cli's handler, one line, exit 2
    }
  }

  /** Runs every known-answer test against every installed provider. */
  @Command(
      name = "self-test",
      description = "Run the known-answer tests of every algorithm against every provider.")
  static final class SelfTest implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      return matrix(ProviderDirectory.discover(), spec.commandLine().getOut());
    }

    static int matrix(ProviderDirectory dir, PrintWriter out) {
      out.println();
      out.println("known-answer tests, every provider x every algorithm:");
      out.printf("  %-28s", "ALGORITHM");
      for (String p : dir.names()) {
        out.printf(" %-16s", p);
      }
      out.println();
      boolean failed = false;
      StringBuilder failures = new StringBuilder();
      for (Algorithm a : Algorithm.values()) {
        out.printf("  %-28s", a + " (" + KnownAnswers.count(a) + ")");
        for (String p : dir.names()) {
          ProviderDirectory.Lookup l = dir.lookup(p);
          String cell;
          if (!l.available()) {
            cell = "unavailable";
          } else if (!l.offers(a)) {
            cell = "-";
          } else {
            SelfTestResult res = KnownAnswers.run(l.provider(), a);
            if (res.passed()) {
              cell = "pass" + (res.skipped() > 0 ? " (" + res.skipped() + " decl.)" : "");
            } else {
              cell = "FAIL";
              failed = true;
              failures.append(String.format("  %s on %s: %s%n", a, p, res.detail()));
            }
          }
          out.printf(" %-16s", cell);
        }
        out.println();
      }
      out.println("  (decl. = vectors with non-standard parameters the provider declined, e.g.");
      out.println("   AES-GCM IVs other than 96 bits; Portcullis never uses those)");
      for (String p : dir.names()) {
        ProviderDirectory.Lookup l = dir.lookup(p);
        if (!l.available()) {
          out.printf("  %s unavailable: %s%n", p, l.failure());
        }
      }
      out.print(failures);
      out.flush();
      return failed ? EXIT_SELF_TEST : 0;
    }
  }
}
