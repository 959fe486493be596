package dev.portcullis.state;

import java.util.Arrays;

/**
 * An entry's value and version (0 when created, +1 at each write).
 *
 * @param data the value; callers must not change it
 * @param version the version it was read at
 */
public record Versioned(byte[] data, int version) {
  /** {@link StateStore#delete} at whatever version. */
  public static final int ANY = -1;

  @Override
  public boolean equals(Object o) {
    return o instanceof Versioned v && v.version == version && Arrays.equals(v.data, data);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(data) + version;
  }

  @Override
  public String toString() {
    return "Versioned[" + data.length + " bytes, version " + version + "]";
  }
}
