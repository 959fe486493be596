package dev.portcullis.pep.cli;

import java.net.InetSocketAddress;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The PDP a command talks to and the client type it opens: {@code --pdp} and {@code --client-type}.
 */
final class PdpTarget {
  @Option(
      names = "--pdp",
      converter = PdpTarget.Address.class,
      defaultValue = "127.0.0.1:3288",
      description = "PDP address (default: ${DEFAULT-VALUE}).")
  InetSocketAddress pdp;

  @Option(
      names = "--client-type",
      converter = ClientType.class,
      defaultValue = "0xC0A5",
      description = "Client type (default: ${DEFAULT-VALUE}).")
  int clientType;

  /** {@code --client-type}, decimal or 0x hex, 1 to 65535. */
  static final class ClientType implements CommandLine.ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      try {
        int v = Integer.decode(value);
        if (v >= 1 && v <= 0xFFFF) {
          return v;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new CommandLine.TypeConversionException(
          value + " (expected: 1 to 65535, decimal or 0x hex)");
    }
  }

  /** {@code --pdp HOST:PORT}, read by {@link dev.portcullis.support.HostPort#parse}. */
  static final class Address implements CommandLine.ITypeConverter<InetSocketAddress> {
    @Override
    public InetSocketAddress convert(String value) {
      try {
        InetSocketAddress u = dev.portcullis.support.HostPort.parse(value);
        return new InetSocketAddress(u.getHostString(), u.getPort());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
