package dev.portcullis.pep.cli;

import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.PepEnrolment;
import dev.portcullis.pep.PepException;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pep-client enrol}: a key pair and a certificate for this PEP, in exchange for a one-time
 * credential (docs/tls.md).
 */
@Command(
    name = "enrol",
    mixinStandardHelpOptions = true,
    description =
        "Enrol with a one-time credential (docs/tls.md): make a key pair, get a "
            + "certificate for  this PEP id from the PDP over TLS, and store both where "
            + "pep.xml's <tls  certificate=... key=...> name them.")
final class EnrolCommand implements Callable<Integer> {
  @Option(
      names = "--config",
      required = true,
      description = "pep.xml with <tls certificate=... key=... trust=...>.")
  Path config;

  @Option(
      names = "--credential-file",
      required = true,
      description =
          "File holding the credential pdp-server issue-credential printed (ID.SECRET); kept"
              + " off the command line, where other users could read it.")
  Path credentialFile;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    String token = credential(credentialFile);
    try (PepConfig cfg = PepConfig.load(config)) {
      var sec = cfg.security();
      if (sec == null || sec.tls() == null || sec.tls().development()) {
        throw Cli.usage(
            config
                + ": enrolment needs <tls certificate=... key=... trust=...>: where to store"
                + " what it gets, and the CA that authenticates the PDP");
      }
      var r =
          PepEnrolment.enrol(
              cfg.pdp(),
              cfg.pepId(),
              sec.tls(),
              sec.tls().trust(),
              sec.authorisedPdps(),
              token,
              sec.tls().certificate(),
              sec.tls().key());
      out.printf(
          "enrolled %s: certificate serial %s, valid until %s; written to %s and %s%n",
          cfg.pepId(),
          r.certificate().getSerialNumber().toString(16),
          r.certificate().getNotAfter().toInstant(),
          r.certificateFile(),
          r.keyFile());
      out.flush();
      return 0;
    } catch (ConfigException e) {
      throw e;
    } catch (PepException e) {
      throw Cli.notDone(e.getMessage());
    }
  }

  /** What a credential looks like: {@code ID.SECRET}, the secret in base64url. */
  private static final java.util.regex.Pattern CREDENTIAL =
      java.util.regex.Pattern.compile("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{16,}");

  /**
   * The credential in {@code file}: its one line in the form {@code ID.SECRET}, whatever else the
   * file holds (what issue-credential said around it, when its stdout and stderr went there).
   * Neither a file without one nor a file with two is guessed at: a usage mistake naming the file
   * and line numbers, never a secret.
   */
  static String credential(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, java.nio.charset.StandardCharsets.UTF_8);
    } catch (IOException | java.io.UncheckedIOException e) {
      throw Cli.usage("cannot read " + file + ": " + e.getMessage());
    }
    List<Integer> found = new java.util.ArrayList<>();
    for (int n = 0; n < lines.size(); n++) {
      if (CREDENTIAL.matcher(lines.get(n).strip()).matches()) {
        found.add(n);
      }
    }
    if (found.isEmpty()) {
      throw Cli.usage(
          "--credential-file "
              + file
              + ": no line is a credential (ID.SECRET, as pdp-server issue-credential prints it)");
    }
    if (found.size() > 1) {
      List<Integer> numbers = found.stream().map(n -> n + 1).toList();
      throw Cli.usage(
          "--credential-file " + file + ": lines " + numbers + " are all credentials: keep one");
    }
    return lines.get(found.get(0)).strip();
  }
}
