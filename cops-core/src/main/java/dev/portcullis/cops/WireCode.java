package dev.portcullis.cops;

/**
 * A code point a COPS field carries — an op code, a C-Num, an error, reason, report or decision
 * code, an access operation or mode — with the name its RFC gives it. Each such enum looks codes up
 * through {@link WireCodes}: {@code valueOf(int)} throws {@link UnknownWireCodeException} for a
 * code it does not define, {@code isDefined(int)} asks first.
 */
public interface WireCode {
  /** The value on the wire. */
  int code();

  /** The RFC's name for it. */
  String description();
}
