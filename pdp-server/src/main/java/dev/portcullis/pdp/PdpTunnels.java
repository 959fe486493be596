package dev.portcullis.pdp;

import dev.portcullis.pdp.tunnel.TunnelDesk;
import dev.portcullis.support.ConfigException;
import java.util.List;
import java.util.Locale;

/**
 * What an operator (or a test) asks of a PDP's tunnels (docs/tunnels.md): the tunnels granted and
 * where each end stands, the gateways standing by, revocation, and the policy read again. A PDP
 * without a tunnel policy answers with none.
 */
public final class PdpTunnels {
  private final TunnelDesk desk; // null: this PDP grants no tunnels

  PdpTunnels(TunnelDesk desk) {
    this.desk = desk;
  }

  /**
   * The tunnels granted and not ended, one line each: {@code ID SUBJECT -> GATEWAY OBJECTIVE
   * client=STATE gateway=STATE}, a state being {@code granted}, {@code keyed}, {@code up}, {@code
   * failed} or {@code down} (from the agents' reports).
   */
  public List<String> list() {
    return desk == null ? List.of() : lines(desk.view());
  }

  /** As {@link #list}, completed by the tunnel desk's thread without waiting for it. */
  public java.util.concurrent.CompletableFuture<List<String>> listSoon() {
    return desk == null
        ? java.util.concurrent.CompletableFuture.completedFuture(List.of())
        : desk.viewSoon().thenApply(PdpTunnels::lines);
  }

  private static List<String> lines(List<dev.portcullis.pdp.tunnel.TunnelBook.View> views) {
    return views.stream()
        .map(
            v ->
                String.format(
                    Locale.ROOT,
                    "%s %s -> %s %s client=%s gateway=%s",
                    v.id(),
                    v.subject(),
                    v.gateway(),
                    v.objective().name().toLowerCase(Locale.ROOT),
                    v.clientState(),
                    v.gatewayState()))
        .toList();
  }

  /** The tunnels granted and not ended, as the control interface shows them. */
  public List<dev.portcullis.pdp.tunnel.TunnelBook.View> views() {
    return desk == null ? List.of() : desk.view();
  }

  /** The gateways whose tunnel agents stand by now. */
  public List<String> gateways() {
    return desk == null ? List.of() : desk.gateways();
  }

  /**
   * Revokes every tunnel of {@code subject} (a user revoked): removed at both ends.
   *
   * @return how many tunnels ended
   */
  public int revokeSubject(String subject, String reason) {
    return desk == null ? 0 : desk.revokeSubject(subject, reason);
  }

  /**
   * Revokes tunnel {@code id} (as {@link #list} names it): removed at both ends.
   *
   * @return false if this PDP granted no such tunnel (or it ended already)
   */
  public boolean revoke(String id, String reason) {
    return desk != null && desk.revoke(id, reason);
  }

  /**
   * Reads the tunnel policy again now (it is also reloaded within 2 s of its file changing);
   * tunnels it no longer grants are removed at both ends.
   *
   * @throws ConfigException if the file is refused: the running policy stays in force
   */
  public void reload() throws ConfigException {
    if (desk != null) {
      desk.reload();
    }
  }
}
