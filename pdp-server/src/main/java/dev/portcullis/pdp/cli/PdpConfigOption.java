package dev.portcullis.pdp.cli;

import dev.portcullis.support.Cli;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code -c/--config}: the PDP configuration a command starts a PDP with (a picocli mixin). */
public final class PdpConfigOption {
  @Option(
      names = {"-c", "--config"},
      defaultValue = Cli.CONF + "/pdp.xml",
      description = "PDP configuration (default: ${DEFAULT-VALUE}).")
  public Path file;
}
