package dev.portcullis.tunnel.vici;

/**
 * charon refused a command: it answered {@code success = no} with its {@code errmsg}, or did not
 * know the command. The message names the command and carries charon's reason as it gave it.
 */
public final class ViciCommandException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String command;
  private final String reason;

  ViciCommandException(String command, String reason) {
    super("charon refused " + command + ": " + reason, null, false, false);
    this.command = command;
    this.reason = reason;
  }

  /** The command refused. */
  public String command() {
    return command;
  }

  /** charon's {@code errmsg} (or why there was none). */
  public String reason() {
    return reason;
  }
}
