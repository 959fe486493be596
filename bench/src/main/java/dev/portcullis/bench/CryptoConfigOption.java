package dev.portcullis.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --crypto-config}: the provider table a benchmark tool measures under (a picocli mixin).
 */
public final class CryptoConfigOption {
  @Option(
      names = "--crypto-config",
      defaultValue = "config/crypto-providers.xml",
      description = "The provider table (default: ${DEFAULT-VALUE}).")
  public Path file;
}
