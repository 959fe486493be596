package dev.portcullis.pdp.connection;

import java.time.Instant;
import java.util.List;

/**
 * What an operator sees of one PEP's connection (docs/operate.md): made on the connection's event
 * loop, which owns what it reads, and handed over as a value.
 *
 * @param pepId the PEP's id, or null before its first Client-Open
 * @param address the PEP's address and port
 * @param since when the connection was accepted
 * @param clientTypes the client types it has open
 * @param handles how many request states it has installed, over every type
 * @param tlsIdentity the subject of its TLS client certificate, or null (plain COPS, or TLS without
 *     one)
 * @param decisions the installed decisions asked for (none unless asked)
 */
public record PepView(
    String pepId,
    String address,
    Instant since,
    List<Integer> clientTypes,
    int handles,
    String tlsIdentity,
    List<Decision> decisions) {

  /**
   * One installed request and what was decided on it.
   *
   * @param clientType its client type
   * @param handle its handle, in hex
   * @param subject who asked, or null (a tunnel's request state, which the tunnel desk holds)
   * @param operation what was asked (login, access, ...), or null as {@code subject}
   * @param install true for an Install decision, false for a Remove
   * @param rule the rule that decided, or null
   */
  public record Decision(
      int clientType,
      String handle,
      String subject,
      String operation,
      boolean install,
      String rule) {}
}
