package dev.portcullis.support;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * A command run as its {@code main} runs it ({@link Cli#of}, the same handler and exit codes), in
 * this JVM, with what it printed.
 */
public record CommandRun(int exitCode, String out, String err) {

  public static CommandRun of(String name, Object command, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Cli.of(name, command);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    return new CommandRun(code, out.toString(), err.toString());
  }

  /** The error output's lines that are not log lines (those start with a time, 12:34:56.789). */
  public String errLines() {
    StringBuilder b = new StringBuilder();
    for (String l : err.split("\n")) {
      if (!l.isBlank() && !l.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*")) {
        b.append(l).append('\n');
      }
    }
    return b.toString();
  }
}
