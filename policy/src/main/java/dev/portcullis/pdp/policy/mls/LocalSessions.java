package dev.portcullis.pdp.policy.mls;

import dev.portcullis.pdp.policy.PolicyRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Sessions held by this PDP alone, keyed by PEP and subject (a PDP without a fleet). Opening,
 * moving or ending one makes the PDP decide that subject's installed requests again, as a fleet's
 * sessions do: an access its session no longer allows is removed at once.
 */
final class LocalSessions implements SessionTable {
  private final Map<String, Label> sessions = new ConcurrentHashMap<>();
  private final Consumer<Predicate<PolicyRequest>> changed;

  /** A table alone: nothing is told of changes (an engine loaded outside a PDP). */
  LocalSessions() {
    this(affected -> {});
  }

  /**
   * @param changed told which installed requests a change decides again
   */
  LocalSessions(Consumer<Predicate<PolicyRequest>> changed) {
    this.changed = changed;
  }

  @Override
  public String key(String pepId, String subject) {
    return pepId + '\u0000' + subject;
  }

  @Override
  public Label get(String key, boolean fresh) {
    return sessions.get(key);
  }

  @Override
  public Label labelOf(String subject) {
    Label best = null;
    String suffix = '\u0000' + subject;
    for (Map.Entry<String, Label> e : sessions.entrySet()) {
      if (e.getKey().endsWith(suffix) && (best == null || e.getValue().rank() > best.rank())) {
        best = e.getValue();
      }
    }
    return best;
  }

  @Override
  public void put(String key, Label label) {
    if (!label.equals(sessions.put(key, label))) {
      changed.accept(decidedBy(key));
    }
  }

  @Override
  public void remove(String key) {
    if (sessions.remove(key) != null) {
      changed.accept(decidedBy(key));
    }
  }

  @Override
  public int size() {
    return sessions.size();
  }

  @Override
  public java.util.List<Open> list() {
    java.util.List<Open> all = new java.util.ArrayList<>();
    sessions.forEach(
        (key, label) -> {
          int cut = key.indexOf('\u0000');
          all.add(new Open(key.substring(0, cut), key.substring(cut + 1), label));
        });
    return all;
  }

  @Override
  public String describe() {
    return "sessions held by this PDP";
  }

  @Override
  public void close() {}
}
