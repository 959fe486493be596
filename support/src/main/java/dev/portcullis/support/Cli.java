package dev.portcullis.support;

import java.io.FileNotFoundException;
import java.net.BindException;
import java.net.UnknownHostException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The conventions every Portcullis command follows. Exit codes: {@value #OK} done, {@value #FAILED}
 * a check failed or the work could not be done (a self-test, an audit chain, a PDP that cannot be
 * reached), {@value #USAGE} a usage or configuration mistake (an unknown option, a bad value, a
 * config file that does not load, a port that cannot be bound). Durations as {@link Durations}
 * reads them ({@code 24h} or {@code PT24H}). A mistake is one line naming what was wrong, never a
 * stack trace (that goes to the log at debug level); picocli already answers an unknown option with
 * the closest known ones.
 */
public final class Cli {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  private Cli() {}

  /** A command line for {@code command}, named {@code name} in its error lines. */
  public static CommandLine of(String name, Object command) {
    CommandLine cl = new CommandLine(command);
    helpEverywhere(cl);
    cl.registerConverter(Duration.class, Durations::parse);
    cl.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          c.getErr().println(name + ": " + message(e));
          LoggerFactory.getLogger(Cli.class).debug("{} failed", name, e);
          return exitCode(e);
        });
    return cl;
  }

  /** {@code --help} (and {@code --version}) on every subcommand that does not define its own. */
  private static void helpEverywhere(CommandLine cl) {
    CommandLine.Model.CommandSpec spec = cl.getCommandSpec();
    if (spec.findOption("--help") == null
        && spec.findOption("-h") == null
        && spec.findOption("-V") == null
        && spec.findOption("--version") == null) {
      spec.mixinStandardHelpOptions(true);
    }
    for (CommandLine sub : cl.getSubcommands().values()) {
      helpEverywhere(sub);
    }
  }

  /** {@value #USAGE} for what the user can fix in the command or its configuration, else 1. */
  public static int exitCode(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof ConfigException
          || c instanceof IllegalArgumentException
          || c instanceof BindException
          || c instanceof UnknownHostException
          || c instanceof NoSuchFileException
          || c instanceof FileNotFoundException
          || c instanceof CommandLine.ParameterException) {
        return USAGE;
      }
    }
    return FAILED;
  }

  /** The message a person reads: the exception's own, or its type when it has none. */
  public static String message(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.toString() : m;
  }
}
