package dev.portcullis.pdp.cli;

import dev.portcullis.support.Cli;
import dev.portcullis.support.pki.DevCertificates;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pdp-server operator-certificate NAME}: a client certificate for an operator of the control
 * interface from the development PKI (docs/operate.md, "Trying it"), so that the walk-through runs
 * on a fresh machine. Not for production: there, operators' certificates come from the CA that
 * {@code <metrics><tls client-ca>} names.
 */
@Command(
    name = "operator-certificate",
    description = {
      "Makes a development client certificate for an operator of the control interface"
          + " (docs/operate.md): CN = NAME, signed by the development PKI's CA, which it makes"
          + " (with the PDP's certificate) if it is not there yet.",
      "Not for production: operators' certificates come from your CA."
    })
final class OperatorCertificate implements Callable<Integer> {
  @Option(
      names = "--dev-pki",
      defaultValue = "target/dev-pki",
      description = "The development PKI's directory (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      description = "The operator's name, as in <operator name=...>.")
  String name;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    DevCertificates.Pki pki;
    try {
      pki = DevCertificates.ensure(dir, List.of(), List.of(name));
    } catch (IllegalArgumentException e) {
      throw Cli.usage(name + ": " + e.getMessage());
    }
    DevCertificates.Credential c = pki.peps().get(name);
    PrintWriter out = spec.commandLine().getOut();
    out.printf("operator %s (development PKI: not for production)%n", name);
    out.printf("  --cert %s%n", c.certificateChain());
    out.printf("  --key %s%n", c.privateKey());
    out.printf("  --ca %s%n", pki.caCertificate());
    out.printf(
        "the PDP's <metrics><tls certificate=\"%s\" key=\"%s\" client-ca=\"%s\"/>%n",
        pki.pdp().certificateChain(), pki.pdp().privateKey(), pki.caCertificate());
    out.flush();
    return Cli.OK;
  }
}
