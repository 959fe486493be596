package dev.portcullis.state;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Pattern;

/** The path rules of {@link StateStore}, checked the same way by every store. */
public final class StorePaths {
  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_:.\\-]{1,1000}");

  private StorePaths() {}

  /** {@code path} if it is a valid absolute path ({@code /} alone is the root). */
  public static String check(String path) {
    if (path == null || path.isEmpty() || path.charAt(0) != '/') {
      throw new IllegalArgumentException("store path " + path + ": must start with /");
    }
    if (path.equals("/")) {
      return path;
    }
    for (String s : path.substring(1).split("/", -1)) {
      if (!SEGMENT.matcher(s).matches() || s.equals(".") || s.equals("..")) {
        throw new IllegalArgumentException(
            "store path "
                + path
                + ": segment '"
                + s
                + "' (expected: 1-1000 of letters, digits, - _ . :; not . or ..)");
      }
    }
    return path;
  }

  /** {@code parent/name}, checked. */
  public static String join(String parent, String name) {
    return check(parent.equals("/") ? "/" + name : parent + "/" + name);
  }

  /** The parent of a checked path other than the root. */
  static String parent(String path) {
    int i = path.lastIndexOf('/');
    return i == 0 ? "/" : path.substring(0, i);
  }

  /**
   * A name made safe as one path segment: itself when it is one and does not start with {@code :},
   * else {@code :} and its UTF-8 bytes in hex (subjects such as {@code CN=alice,O=lab}). Distinct
   * names give distinct segments.
   *
   * @throws IllegalArgumentException for a name of more than 499 UTF-8 bytes needing hex
   */
  public static String segment(String name) {
    if (SEGMENT.matcher(name).matches()
        && !name.equals(".")
        && !name.equals("..")
        && !name.startsWith(":")) {
      return name;
    }
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 499) {
      throw new IllegalArgumentException(
          "name of " + bytes.length + " bytes: too long for a store path (at most 499)");
    }
    return ":" + HexFormat.of().formatHex(bytes);
  }

  /**
   * The name {@link #segment} made {@code segment} from: itself, or the UTF-8 text of the hex after
   * a leading {@code :}.
   *
   * @throws IllegalArgumentException for a {@code :} segment whose rest is not hex
   */
  public static String name(String segment) {
    if (!segment.startsWith(":")) {
      return segment;
    }
    return new String(HexFormat.of().parseHex(segment.substring(1)), StandardCharsets.UTF_8);
  }
}
