package dev.portcullis.support;

import java.util.regex.Pattern;

/** The configuration files' globs: {@code *} any run, {@code ?} one character, nothing else. */
public final class Glob {
  private Glob() {}

  /**
   * {@code glob} as a pattern that matches whole strings ({@link java.util.regex.Matcher#matches}).
   */
  public static Pattern pattern(String glob) {
    StringBuilder re = new StringBuilder();
    for (char ch : glob.toCharArray()) {
      re.append(ch == '*' ? ".*" : ch == '?' ? "." : Pattern.quote(String.valueOf(ch)));
    }
    return Pattern.compile(re.toString());
  }
}
