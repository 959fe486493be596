package dev.portcullis.pdp.connection;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.Handle;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyRequest;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One PEP connection's open client types, each with its installed request states in arrival order.
 * Owned by the connection's {@code PdpStateMachine} (and the decision helpers it made), on the
 * connection's event loop; every other handler sees it through {@link PepLink.OpenTypes} only, and
 * asks the machine to install a state it decided itself by passing it an {@link Install} message.
 */
public final class Sessions implements PepLink.OpenTypes {
  /** Request state the PDP holds for one handle. */
  public record Installed(PolicyRequest request, Context context, PolicyDecision decision) {}

  /**
   * A request state a handler before the state machine decided itself (the tunnel desk's), for the
   * machine to install so that reports and deletes on it find a known handle.
   */
  public record Install(int clientType, Handle handle, Context context) {}

  /** Keyed by the int client type: no boxing per request. */
  private final IntObjectMap<Map<Handle, Installed>> byType = new IntObjectHashMap<>();

  @Override
  public boolean isOpen(int type) {
    return byType.containsKey(type);
  }

  @Override
  public int held(int type) {
    Map<Handle, Installed> s = byType.get(type);
    return s == null ? 0 : s.size();
  }

  @Override
  public boolean holds(int type, Handle h) {
    Map<Handle, Installed> s = byType.get(type);
    return s != null && s.containsKey(h);
  }

  @Override
  public int[] types() {
    int[] t = new int[byType.size()];
    int i = 0;
    for (int type : byType.keySet()) {
      t[i++] = type;
    }
    return t;
  }

  @Override
  public boolean isEmpty() {
    return byType.isEmpty();
  }

  /** Opens {@code type} with no request state. */
  public void open(int type) {
    byType.put(type, new LinkedHashMap<>());
  }

  /** The installed request states of {@code type}, or null if it is not open. */
  public Map<Handle, Installed> of(int type) {
    return byType.get(type);
  }

  /** Closes {@code type}: its request states, or null if it was not open. */
  public Map<Handle, Installed> close(int type) {
    return byType.remove(type);
  }

  /** Every open type's request states, for a last look before {@link #clear}. */
  public Iterable<Map.Entry<Integer, Map<Handle, Installed>>> all() {
    return byType.entrySet();
  }

  public int handles() {
    int n = 0;
    for (Map<Handle, Installed> s : byType.values()) {
      n += s.size();
    }
    return n;
  }

  public void clear() {
    byType.clear();
  }
}
