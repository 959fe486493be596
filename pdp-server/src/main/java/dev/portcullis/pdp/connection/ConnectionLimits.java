package dev.portcullis.pdp.connection;

import java.time.Duration;
import java.util.Map;

/**
 * The limits and timers a PEP connection's handlers apply, as the PDP's configuration set them:
 * what the handlers read of it, and nothing else of it (the configuration is the server's).
 *
 * @param handshake how long a PEP has to open a client type
 * @param keepAlive the Keep-Alive timer a Client-Accept gives (zero: none)
 * @param accounting the Accounting timer a Client-Accept gives (zero: none)
 * @param maxConnections connections open at once
 * @param maxHandles request states of one client type a PEP may hold
 * @param maxPendingDecisions requests of one PEP an asynchronous engine may be deciding at once
 * @param maxMessageSize the largest COPS message read
 * @param maxMessagesPerSecond messages read from one PEP per second before reading waits
 * @param decisionTimeouts each client type's decision timeout, where it is not {@code
 *     defaultDecisionTimeout}
 * @param defaultDecisionTimeout the decision timeout of a client type without its own
 */
public record ConnectionLimits(
    Duration handshake,
    Duration keepAlive,
    Duration accounting,
    int maxConnections,
    int maxHandles,
    int maxPendingDecisions,
    int maxMessageSize,
    int maxMessagesPerSecond,
    Map<Integer, Duration> decisionTimeouts,
    Duration defaultDecisionTimeout) {
  public ConnectionLimits {
    decisionTimeouts = Map.copyOf(decisionTimeouts);
  }

  /** How long {@code clientType}'s engine may take to decide a request. */
  public Duration decisionTimeout(int clientType) {
    return decisionTimeouts.getOrDefault(clientType, defaultDecisionTimeout);
  }
}
