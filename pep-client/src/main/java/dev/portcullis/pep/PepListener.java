package dev.portcullis.pep;

import dev.portcullis.cops.tls.CopsTls;
import java.net.InetSocketAddress;

/** Callbacks for what the PDP does on its own. Called on the client's event loop: be quick. */
public interface PepListener {

  /** The PDP changed an installed decision (an unsolicited DEC after a policy change). */
  default void decisionChanged(String handle, PepDecision decision) {}

  /** The client type was accepted (again, after a reconnect). */
  default void opened(InetSocketAddress pdp, int keepAliveSeconds) {}

  /** A TLS handshake with the PDP finished (full or resumed) and the PDP was authenticated. */
  default void tlsEstablished(CopsTls.Handshake handshake) {}

  /** The connection ended; the client reconnects unless it is being closed. */
  default void disconnected(PepException reason) {}
}
