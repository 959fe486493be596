package dev.portcullis.cops;

import java.util.Locale;

/** How a COPS client type (RFC 2748 section 2.1, 16 bits) is written in logs, audit and errors. */
public final class ClientTypes {
  private ClientTypes() {}

  /** {@code 0xC0A5}: four upper-case hex digits, whatever the default locale. */
  public static String hex(int clientType) {
    return String.format(Locale.ROOT, "0x%04X", clientType);
  }
}
