package dev.portcullis.tunnel.vici;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A VICI message: an ordered tree of key/value pairs, lists of values and named sections, as
 * strongSwan's charon reads and writes them on its control socket. Values are byte strings (almost
 * always text; certificates and keys may be binary); names are ASCII, at most 255 bytes; a value is
 * at most 65,535 bytes. Immutable; built with {@link #builder()}. Wire layout: docs/tunnels.md.
 */
public final class ViciMessage {
  /** The empty message (a command without arguments). */
  public static final ViciMessage EMPTY = new ViciMessage(Map.of());

  /**
   * Each entry's value is a {@code byte[]} (a key/value pair), a {@code List<byte[]>} (a list) or a
   * {@code ViciMessage} (a section), in the order they were added.
   */
  private final Map<String, Object> entries;

  private ViciMessage(Map<String, Object> entries) {
    this.entries = entries;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The names at this level, in order. */
  public List<String> keys() {
    return List.copyOf(entries.keySet());
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** The entries at this level, in order (values as described at {@link ViciMessage}). */
  Map<String, Object> entries() {
    return entries;
  }

  /** The value of key {@code name} as UTF-8 text, or null if there is none (or it is no value). */
  public String text(String name) {
    return entries.get(name) instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : null;
  }

  /** The value of key {@code name} as bytes (a copy), or null. */
  public byte[] value(String name) {
    return entries.get(name) instanceof byte[] b ? b.clone() : null;
  }

  /** The section {@code name}, or null. */
  public ViciMessage section(String name) {
    return entries.get(name) instanceof ViciMessage m ? m : null;
  }

  /** The list {@code name} as UTF-8 texts, or an empty list. */
  public List<String> list(String name) {
    if (!(entries.get(name) instanceof List<?> l)) {
      return List.of();
    }
    List<String> out = new ArrayList<>(l.size());
    for (Object o : l) {
      out.add(new String((byte[]) o, StandardCharsets.UTF_8));
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ViciMessage m) || !m.entries.keySet().equals(entries.keySet())) {
      return false;
    }
    for (Map.Entry<String, Object> e : entries.entrySet()) {
      if (!same(e.getValue(), m.entries.get(e.getKey()))) {
        return false;
      }
    }
    return List.copyOf(entries.keySet()).equals(List.copyOf(m.entries.keySet()));
  }

  private static boolean same(Object a, Object b) {
    if (a instanceof byte[] x && b instanceof byte[] y) {
      return java.util.Arrays.equals(x, y);
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!java.util.Arrays.equals((byte[]) x.get(i), (byte[]) y.get(i))) {
          return false;
        }
      }
      return true;
    }
    return Objects.equals(a, b);
  }

  @Override
  public int hashCode() {
    return entries.keySet().hashCode();
  }

  /**
   * The message as text for logs and errors: values that look like secrets ({@code secret}, {@code
   * data} of keys) are never shown.
   */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, Object> e : entries.entrySet()) {
      if (b.length() > 1) {
        b.append(", ");
      }
      b.append(e.getKey()).append('=');
      Object v = e.getValue();
      if (SECRET_KEYS.contains(e.getKey())) {
        b.append("(hidden)");
      } else if (BINARY_LISTS.contains(e.getKey()) && v instanceof List<?> l) {
        b.append('(').append(l.size()).append(" certificates)");
      } else if (v instanceof byte[] x) {
        b.append(new String(x, StandardCharsets.UTF_8));
      } else if (v instanceof List<?> l) {
        b.append('[');
        for (int i = 0; i < l.size(); i++) {
          b.append(i == 0 ? "" : ", ")
              .append(new String((byte[]) l.get(i), StandardCharsets.UTF_8));
        }
        b.append(']');
      } else {
        b.append(v);
      }
    }
    return b.append('}').toString();
  }

  /**
   * Keys whose values are key material in the commands Portcullis sends (load-shared, load-key).
   */
  private static final java.util.Set<String> SECRET_KEYS = java.util.Set.of("data", "secret");

  /** Lists whose values are certificates in DER (load-conn's certs, cacerts): not text. */
  private static final java.util.Set<String> BINARY_LISTS = java.util.Set.of("certs", "cacerts");

  /** Builds a message, checking names and sizes as it goes. */
  public static final class Builder {
    private final Map<String, Object> entries = new LinkedHashMap<>();

    private Builder() {}

    /** A key/value pair with a UTF-8 text value. */
    public Builder put(String name, String value) {
      return put(name, value.getBytes(StandardCharsets.UTF_8));
    }

    /** A key/value pair (the bytes are copied). */
    public Builder put(String name, byte[] value) {
      add(name, checkValue(name, value).clone());
      return this;
    }

    /** A list of UTF-8 text values. */
    public Builder list(String name, List<String> values) {
      List<byte[]> l = new ArrayList<>(values.size());
      for (String v : values) {
        l.add(checkValue(name, v.getBytes(StandardCharsets.UTF_8)));
      }
      add(name, Collections.unmodifiableList(l));
      return this;
    }

    /** A list of binary values (certificates, in DER); the bytes are copied. */
    public Builder binaryList(String name, List<byte[]> values) {
      List<byte[]> l = new ArrayList<>(values.size());
      for (byte[] v : values) {
        l.add(checkValue(name, v).clone());
      }
      add(name, Collections.unmodifiableList(l));
      return this;
    }

    /** A named section. */
    public Builder section(String name, ViciMessage section) {
      add(name, Objects.requireNonNull(section, "section"));
      return this;
    }

    /** A list from the wire (values as they came). */
    Builder rawList(String name, List<byte[]> values) {
      add(name, Collections.unmodifiableList(new ArrayList<>(values)));
      return this;
    }

    /** Whether {@code name} is taken at this level. */
    boolean has(String name) {
      return entries.containsKey(name);
    }

    private void add(String name, Object value) {
      ViciCodec.checkName(name);
      if (entries.putIfAbsent(name, value) != null) {
        throw new IllegalArgumentException("VICI name '" + name + "' twice in one section");
      }
    }

    private static byte[] checkValue(String name, byte[] value) {
      if (value.length > ViciCodec.MAX_VALUE) {
        throw new IllegalArgumentException(
            "VICI value of '"
                + name
                + "': "
                + value.length
                + " bytes (at most "
                + ViciCodec.MAX_VALUE
                + ")");
      }
      return value;
    }

    public ViciMessage build() {
      return entries.isEmpty()
          ? EMPTY
          : new ViciMessage(Collections.unmodifiableMap(new LinkedHashMap<>(entries)));
    }
  }
}
