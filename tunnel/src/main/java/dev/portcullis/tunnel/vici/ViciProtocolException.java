package dev.portcullis.tunnel.vici;

import java.io.IOException;

/**
 * Bytes from the daemon that are not VICI: the message names the byte offset in the packet and what
 * was expected there. The connection they came on is closed: nothing after them can be trusted to
 * be framed right.
 */
public final class ViciProtocolException extends IOException {
  private static final long serialVersionUID = 1L;

  ViciProtocolException(String message) {
    super(message);
  }
}
