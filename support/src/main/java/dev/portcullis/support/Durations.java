package dev.portcullis.support;

import java.time.Duration;
import java.util.Date;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.datatype.DatatypeConfigurationException;
import javax.xml.datatype.DatatypeFactory;

/**
 * Durations as people write them, in configuration files and on command lines alike: ISO-8601 /
 * {@code xs:duration} ({@code PT30S}, {@code PT24H}, {@code P7D}; no years or months, whose length
 * varies) or a number with a unit, several in a row ({@code 500ms}, {@code 30s}, {@code 5m}, {@code
 * 24h}, {@code 7d}, {@code 1h30m}). Never negative.
 */
public final class Durations {
  private Durations() {}

  /** What {@link #parse} accepts, for error messages. */
  public static final String EXPECTED =
      "a duration such as 30s, 5m, 24h, 7d, 1h30m, 500ms or PT24H";

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");
  private static final DatatypeFactory DATATYPES;

  static {
    try {
      DATATYPES = DatatypeFactory.newInstance();
    } catch (DatatypeConfigurationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * The duration {@code text} says.
   *
   * @throws IllegalArgumentException naming the text and what was expected
   */
  public static Duration parse(String text) {
    String t = text == null ? "" : text.trim();
    if (t.startsWith("P") || t.startsWith("p")) {
      try {
        javax.xml.datatype.Duration x = DATATYPES.newDuration(t.toUpperCase(Locale.ROOT));
        if (x.getYears() == 0 && x.getMonths() == 0 && x.getSign() >= 0) {
          return Duration.ofMillis(x.getTimeInMillis(new Date(0)));
        }
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        // below
      }
      throw new IllegalArgumentException("'" + text + "': expected " + EXPECTED);
    }
    Matcher m = PART.matcher(t.toLowerCase(Locale.ROOT));
    Duration d = Duration.ZERO;
    int at = 0;
    while (at < t.length() && m.find(at) && m.start() == at) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + text + "': too large");
      }
      d =
          d.plus(
              switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
              });
      at = m.end();
    }
    if (at == 0 || at != t.length()) {
      throw new IllegalArgumentException("'" + text + "': expected " + EXPECTED);
    }
    return d;
  }
}
