package dev.portcullis.crypto.cli;

import dev.portcullis.support.Cli;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The provider table a command builds: {@code -c/--config}, for the crypto commands (mixed in with
 * picocli's {@code @Mixin}).
 */
final class ProviderTableOption {
  @Option(
      names = {"-c", "--config"},
      defaultValue = Cli.CONF + "/crypto-providers.xml",
      description = "Crypto provider configuration (default: ${DEFAULT-VALUE}).")
  Path config;
}
