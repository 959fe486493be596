package dev.portcullis.support;

/**
 * A configuration that cannot be used. The message is one line that says where the problem is
 * (file, line, column, element, attribute, as far as they are known) and what was expected; it
 * never carries secrets.
 */
public class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final int column;
  private final String element;
  private final String attribute;
  private final String problem;

  /** A problem at a place in a configuration file; any location part may be unknown. */
  public ConfigException(
      String source,
      int line,
      int column,
      String element,
      String attribute,
      String problem,
      Throwable cause) {
    super(format(source, line, column, element, attribute, problem), cause);
    this.source = source;
    this.line = line;
    this.column = column;
    this.element = element;
    this.attribute = attribute;
    this.problem = problem;
  }

  /** A problem at a place in a configuration file, with no underlying cause. */
  public ConfigException(
      String source, int line, int column, String element, String attribute, String problem) {
    this(source, line, column, element, attribute, problem, null);
  }

  /** A problem with a configuration as a whole (no place in a file). */
  public ConfigException(String source, String problem, Throwable cause) {
    this(source, -1, -1, null, null, problem, cause);
  }

  static String format(
      String source, int line, int column, String element, String attribute, String problem) {
    StringBuilder sb = new StringBuilder();
    sb.append(source == null ? "<config>" : source);
    if (line > 0) {
      sb.append(':').append(line);
      if (column > 0) {
        sb.append(':').append(column);
      }
    }
    sb.append(": ");
    if (element != null) {
      sb.append("element <").append(element).append('>');
      if (attribute != null) {
        sb.append(", attribute '").append(attribute).append('\'');
      }
      sb.append(": ");
    }
    sb.append(problem);
    return sb.toString();
  }

  /** The file (or other source name) the configuration came from, or null. */
  public String source() {
    return source;
  }

  /** 1-based line, or -1 if unknown. */
  public int line() {
    return line;
  }

  /** 1-based column, or -1 if unknown. */
  public int column() {
    return column;
  }

  /** The element at fault, or null. */
  public String element() {
    return element;
  }

  /** The attribute at fault, or null. */
  public String attribute() {
    return attribute;
  }

  /** What was wrong, without the location prefix. */
  public String problem() {
    return problem;
  }
}
