package dev.portcullis.support;

import java.io.IOException;

/**
 * A file another process owns (an audit log or a store another server writes): two servers
 * configured onto one file, a mistake in their configuration ({@link Cli}: exit 2).
 */
public final class FileInUseException extends IOException {
  private static final long serialVersionUID = 1L;

  public FileInUseException(String message) {
    super(message);
  }
}
