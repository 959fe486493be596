package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What a command's failure exits with: 2 for what the user fixes, 1 for the rest. */
class CliTest {
  @Test
  void userMistakesAreTwoAndFailuresOne() {
    assertEquals(Cli.USAGE, Cli.exitCode(new ConfigException("pdp.xml", "bad", null)));
    assertEquals(Cli.USAGE, Cli.exitCode(new IllegalArgumentException("'10x': expected ...")));
    BindException bind = new BindException("cannot listen on 127.0.0.1:3288: in use");
    assertEquals(Cli.USAGE, Cli.exitCode(new IOException("wrapped", bind)), "found as a cause");
    assertEquals(Cli.FAILED, Cli.exitCode(new IOException("connection refused")));
  }

  @Test
  void theReadmeShowsEveryRowOfTheTable() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    for (Cli.Cause c : Cli.Cause.values()) {
      assertTrue(
          readme.contains("| " + c.exitCode + " | " + c.meaning + " |"),
          "README.md's exit table lacks " + c + ": " + c.meaning);
    }
  }

  @Test
  void aFileInUseIsTwoAndAFutureIsUnwrapped() {
    assertEquals(Cli.USAGE, Cli.exitCode(new FileInUseException("audit.jsonl is in use")));
    assertEquals(
        "cannot connect",
        Cli.message(new java.util.concurrent.ExecutionException(new Exception("cannot connect"))));
  }

  @picocli.CommandLine.Command(name = "probe")
  static final class Probe implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Option(names = "--valid-for", required = true)
    java.time.Duration validFor;

    @picocli.CommandLine.Option(names = "--subject", required = true)
    String subject;

    @Override
    public Integer call() {
      return 0;
    }
  }

  /** A usage mistake is one line: the option, the accepted form, the usage's place. */
  @Test
  void aUsageMistakeIsOneLineWithoutAnExceptionsName() {
    CommandRun r = CommandRun.of("probe", new Probe(), "--subject", "x", "--valid-for", "24hours");
    assertEquals(Cli.USAGE, r.exitCode());
    assertEquals(
        "probe: Invalid value for option '--valid-for': '24hours': expected a duration such as"
            + " 30s, 5m, 24h, 7d, 1h30m, 500ms or PT24H; see probe --help",
        r.err().strip());
    r = CommandRun.of("probe", new Probe(), "--subjet", "x", "--valid-for", "1h");
    assertEquals(Cli.USAGE, r.exitCode());
    assertTrue(r.err().contains("did you mean --subject?"), r.err());
    assertEquals(1, r.err().strip().lines().count(), r.err());
  }
}
