package dev.portcullis.pdp.policy.mls;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Sessions held by this PDP alone, keyed by PEP and subject (a PDP without a fleet). */
final class LocalSessions implements SessionTable {
  private final Map<String, Label> sessions = new ConcurrentHashMap<>();

  @Override
  public String key(String pepId, String subject) {
    return pepId + '\u0000' + subject;
  }

  @Override
  public Label get(String key, boolean fresh) {
    return sessions.get(key);
  }

  @Override
  public void put(String key, Label label) {
    sessions.put(key, label);
  }

  @Override
  public void remove(String key) {
    sessions.remove(key);
  }

  @Override
  public int size() {
    return sessions.size();
  }

  @Override
  public String describe() {
    return "sessions held by this PDP";
  }

  @Override
  public void close() {}
}
