package dev.portcullis.support;

import java.io.FileNotFoundException;
import java.net.BindException;
import java.net.UnknownHostException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The conventions every Portcullis command follows. Exit codes: {@value #OK} done, {@value #FAILED}
 * a check failed or the work could not be done, {@value #USAGE} a usage or configuration mistake;
 * which failure is which is one table, {@link Cause}, and every command's failure goes through it
 * (a command throws; the handler {@link #of} installs prints one line, {@code <command>: <what was
 * wrong>}, and exits with the code of the first cause in the table the failure's chain matches).
 * Durations as {@link Durations} reads them ({@code 24h} or {@code PT24H}). Never a stack trace for
 * a mistake (that goes to the log at debug level); picocli already answers an unknown option with
 * the closest known ones.
 */
public final class Cli {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;

  /**
   * Where a command looks for its configuration when {@code --config} is not given, for picocli's
   * {@code defaultValue}: the install's {@code conf/} when a launcher runs it (the launchers set
   * {@code portcullis.conf}), else {@code config/} of the working directory (a checkout).
   */
  public static final String CONF = "${sys:portcullis.conf:-config}";

  private Cli() {}

  /**
   * Why a command did not finish, in the order a failure is matched: the first cause whose test
   * holds for the failure or anything in its cause chain decides the exit code. README.md's
   * "Command lines" shows this table ({@code CliTest} checks it does); {@code CliCausesTest} in
   * pdp-server and pep-client, and {@code RosaConfigTest}, run a real command for each row.
   */
  public enum Cause {
    /** An unknown option, a missing one, or a value not in the accepted form. */
    USAGE_MISTAKE(USAGE, "an unknown or missing option, or a value not in the accepted form"),
    /** A configuration file that does not load (file, line, element and attribute named). */
    CONFIGURATION(USAGE, "a configuration file that does not load"),
    /** A file named on the command line or in a configuration that is not there. */
    NO_SUCH_FILE(USAGE, "a file that does not exist"),
    /** Two servers configured onto one file (an audit log, a store). */
    FILE_IN_USE(USAGE, "a file another process owns (an audit log in use)"),
    /** A port in use, or an address that is not this host's. */
    CANNOT_BIND(USAGE, "an address that cannot be listened on (a port in use)"),
    /** A host name that does not resolve. */
    UNKNOWN_HOST(USAGE, "a host name that does not resolve"),
    /** A value the command cannot use (an unknown router id, a level not in the policy). */
    BAD_VALUE(USAGE, "a value the command cannot use (an unknown router id, say)"),
    /** Anything else: the work could not be done (a PDP not running, a refusal, a broken chain). */
    NOT_DONE(FAILED, "the work could not be done (a PDP not running, a refusal, a failed check)");

    public final int exitCode;
    public final String meaning;

    Cause(int exitCode, String meaning) {
      this.exitCode = exitCode;
      this.meaning = meaning;
    }

    /** The cause of {@code e}: the first row any throwable in its cause chain matches. */
    public static Cause of(Throwable e) {
      for (Cause c : values()) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
          if (c.matches(t)) {
            return c;
          }
        }
      }
      return NOT_DONE;
    }

    private boolean matches(Throwable t) {
      return switch (this) {
        case USAGE_MISTAKE -> t instanceof CommandLine.ParameterException || t instanceof Usage;
        case CONFIGURATION -> t instanceof ConfigException;
        case NO_SUCH_FILE -> t instanceof NoSuchFileException || t instanceof FileNotFoundException;
        case FILE_IN_USE -> t instanceof FileInUseException;
        case CANNOT_BIND -> t instanceof BindException;
        case UNKNOWN_HOST -> t instanceof UnknownHostException;
        case BAD_VALUE -> t instanceof IllegalArgumentException;
        case NOT_DONE -> true;
      };
    }
  }

  /** A usage mistake a command finds itself: its message is the one line the user reads. */
  public static final class Usage extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Usage(String message) {
      super(message);
    }
  }

  /** Work a command could not do, said in one line (exit {@value #FAILED}). */
  public static final class NotDone extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NotDone(String message) {
      super(message);
    }

    public NotDone(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Throws a {@link Usage}: {@code throw Cli.usage("--port 99999 (expected: 0 to 65535)")}. */
  public static Usage usage(String message) {
    return new Usage(message);
  }

  /**
   * What a command that has subcommands says when it is given none: a usage mistake (exit {@value
   * #USAGE}) naming them and where the usage is, never the whole usage.
   */
  public static Usage commandNeeded(CommandLine.Model.CommandSpec spec) {
    List<String> commands = new ArrayList<>(spec.subcommands().keySet());
    commands.remove("help");
    return usage(
        "a command is needed: "
            + String.join(", ", commands)
            + "; see "
            + spec.qualifiedName()
            + " --help");
  }

  /** A {@link NotDone}: {@code throw Cli.notDone("the fleet's state store: ...")}. */
  public static NotDone notDone(String message) {
    return new NotDone(message);
  }

  /**
   * What {@code --version} says: the command's name and the version its jar was built as (its
   * manifest's Implementation-Version, {@code 0.1.0-SNAPSHOT} for a build of a snapshot), or "(a
   * build from the source tree)" when it runs from classes, not a jar.
   */
  public static final class Version implements CommandLine.IVersionProvider {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public String[] getVersion() {
      Object user = spec.userObject();
      Package p = user == null ? null : user.getClass().getPackage();
      String v = p == null ? null : p.getImplementationVersion();
      return new String[] {
        spec.root().name() + " " + (v == null ? "(a build from the source tree)" : v)
      };
    }
  }

  /** A command line for {@code command}, named {@code name} in its error lines. */
  public static CommandLine of(String name, Object command) {
    CommandLine cl = new CommandLine(command);
    helpEverywhere(cl);
    cl.registerConverter(Duration.class, Durations::parse);
    cl.setParameterExceptionHandler((e, args) -> usageLine(name, e, args));
    cl.setExecutionExceptionHandler(
        (e, c, parsed) -> {
          c.getErr().println(name + ": " + message(e));
          LoggerFactory.getLogger(Cli.class).debug("{} failed", name, e);
          return exitCode(e);
        });
    return cl;
  }

  /**
   * A usage mistake is one line: what picocli found wrong (the option and the accepted form, as its
   * converters say), the closest known options for one it does not know (also when it stopped first
   * at a missing required one: {@code --subjet} is a typo of {@code --subject}), and where the
   * usage is; not the usage itself, which would bury the line.
   */
  private static int usageLine(String name, CommandLine.ParameterException e, String[] args) {
    CommandLine c = e.getCommandLine();
    // a converter's own words, not picocli's wrapping of its exception: "cannot convert '24hours'
    // to Duration (java.lang.IllegalArgumentException: '24hours': expected ...)" says the latter
    String line =
        e.getMessage()
            .replaceFirst("cannot convert '[^']*' to [\\w.<>]+ \\([\\w.$]+: (.*)\\)$", "$1");
    List<String> unknown = new ArrayList<>();
    if (e instanceof CommandLine.UnmatchedArgumentException u) {
      unknown.addAll(u.getUnmatched());
    } else {
      for (String a : args) {
        String option = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
        if (option.startsWith("-")
            && !option.matches("-[0-9].*") // a negative number is a value
            && c.getCommandSpec().findOption(option) == null
            && !c.getSubcommands().containsKey(option)) {
          unknown.add(option);
        }
      }
      if (!unknown.isEmpty()) {
        line += "; unknown option " + String.join(", ", unknown);
      }
    }
    if (!unknown.isEmpty()) {
      List<String> close = new CommandLine.UnmatchedArgumentException(c, unknown).getSuggestions();
      if (!close.isEmpty()) {
        line += " (did you mean " + String.join(" or ", close) + "?)";
      }
    }
    c.getErr()
        .println(
            name
                + ": "
                + line.replace(System.lineSeparator(), " ").replace("\n", " ").strip()
                + "; see "
                + c.getCommandSpec().qualifiedName()
                + " --help");
    c.getErr().flush();
    return USAGE;
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

  /** The exit code of a failure: its {@link Cause}'s. */
  public static int exitCode(Throwable e) {
    return Cause.of(e).exitCode;
  }

  /**
   * The message a person reads: the exception's own, or its type when it has none; what a future or
   * an executor wrapped is unwrapped first.
   */
  public static String message(Throwable e) {
    while ((e instanceof ExecutionException || e instanceof CompletionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    String m = e.getMessage();
    return m == null || m.isBlank() ? e.toString() : m;
  }
}
