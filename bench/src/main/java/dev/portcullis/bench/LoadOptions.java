package dev.portcullis.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every PDP load harness shares (a picocli mixin): the policy and the load's shape. */
final class LoadOptions {
  @Option(
      names = "--policy",
      defaultValue = "config/policy-rules.xml",
      description = "Rules policy (default: ${DEFAULT-VALUE}).")
  Path policy;

  @Option(
      names = "--connections",
      defaultValue = "2",
      description = "Connections of the throughput run (default: ${DEFAULT-VALUE}).")
  int connections;

  @Option(
      names = "--outstanding",
      defaultValue = "32",
      description = "Requests outstanding per connection (default: ${DEFAULT-VALUE}).")
  int outstanding;

  @Option(
      names = "--seconds",
      defaultValue = "5",
      description = "Measured seconds of each throughput run (default: ${DEFAULT-VALUE}).")
  int seconds;
}
