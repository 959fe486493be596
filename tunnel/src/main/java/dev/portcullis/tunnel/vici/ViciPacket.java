package dev.portcullis.tunnel.vici;

import java.util.Objects;

/**
 * One VICI packet: its type, its name (commands, event (un)registrations and events are named; the
 * answers are not) and its message.
 */
public record ViciPacket(Type type, String name, ViciMessage message) {
  /** The eight packet types (strongSwan's {@code vici_operation_t}). */
  public enum Type {
    CMD_REQUEST(0, true),
    CMD_RESPONSE(1, false),
    CMD_UNKNOWN(2, false),
    EVENT_REGISTER(3, true),
    EVENT_UNREGISTER(4, true),
    EVENT_CONFIRM(5, false),
    EVENT_UNKNOWN(6, false),
    EVENT(7, true);

    final int code;
    final boolean named;

    Type(int code, boolean named) {
      this.code = code;
      this.named = named;
    }

    /** The type with wire code {@code code}, or null. */
    static Type of(int code) {
      return code >= 0 && code < values().length ? values()[code] : null;
    }
  }

  public ViciPacket {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(message, "message");
    if (type.named) {
      ViciCodec.checkName(Objects.requireNonNull(name, "a " + type + " packet is named"));
    } else if (name != null) {
      throw new IllegalArgumentException("a " + type + " packet has no name");
    }
  }

  /** A command request. */
  public static ViciPacket command(String name, ViciMessage arguments) {
    return new ViciPacket(Type.CMD_REQUEST, name, arguments);
  }
}
