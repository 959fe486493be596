package dev.portcullis.cops;

import java.util.List;
import java.util.Objects;

/** Argument checks the CopsMessage records share. */
final class MessageFields {
  private MessageFields() {}

  static int checkClientType(int clientType) {
    if (clientType < 0 || clientType > 0xFFFF) {
      throw new IllegalArgumentException("client-type: " + clientType + " (expected: 0 to 65535)");
    }
    return clientType;
  }

  static <T> T required(T o, String what) {
    return Objects.requireNonNull(o, what + " is mandatory");
  }

  static void hmacOnly(IntegrityObject i, OpCode op) {
    if (i instanceof IntegrityTls) {
      throw new IllegalArgumentException(
          "Integrity-TLS in " + op + " (expected: only in OPN and CAT, RFC 4261 section 4.1)");
    }
  }

  static void add(List<CopsObject> l, CopsObject o) {
    if (o != null) {
      l.add(o);
    }
  }
}
