package dev.portcullis.cops;

import java.util.Arrays;

/** The constants of one {@link WireCode} enum, indexed by their code. */
public final class WireCodes<E extends Enum<E> & WireCode> {
  private final Class<E> type;
  private final E[] byCode;

  private WireCodes(Class<E> type, E[] byCode) {
    this.type = type;
    this.byCode = byCode;
  }

  /** The table of {@code type}'s constants; call from the enum's static initialiser. */
  public static <E extends Enum<E> & WireCode> WireCodes<E> of(Class<E> type) {
    E[] constants = type.getEnumConstants();
    int max = 0;
    for (E e : constants) {
      max = Math.max(max, e.code());
    }
    E[] byCode = Arrays.copyOf(constants, max + 1);
    Arrays.fill(byCode, null);
    for (E e : constants) {
      byCode[e.code()] = e;
    }
    return new WireCodes<>(type, byCode);
  }

  /** True if {@code code} names a constant. */
  public boolean isDefined(int code) {
    return code >= 0 && code < byCode.length && byCode[code] != null;
  }

  /**
   * The constant for {@code code}.
   *
   * @throws UnknownWireCodeException if there is none
   */
  public E valueOf(int code) {
    if (!isDefined(code)) {
      throw new UnknownWireCodeException(type.getSimpleName(), code);
    }
    return byCode[code];
  }
}
