package dev.portcullis.state;

import java.util.Arrays;

/**
 * An entry's value and version (0 when created, +1 at each write), and the store session that holds
 * its lease.
 *
 * @param data the value; callers must not change it
 * @param version the version it was read at
 * @param owner the store session a leased entry lives with ({@link #DURABLE}: none, the entry is
 *     durable); ask {@link StateStore#live} before deciding from a leased entry
 */
public record Versioned(byte[] data, int version, long owner) {
  /** {@link StateStore#delete} at whatever version. */
  public static final int ANY = -1;

  /** The owner of a durable entry: no session. */
  public static final long DURABLE = 0;

  /** A durable entry's value and version. */
  public Versioned(byte[] data, int version) {
    this(data, version, DURABLE);
  }

  /** Value and version: two reads of one write are equal, whoever holds the lease. */
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
