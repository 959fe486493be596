package dev.portcullis.active.service.builtin;

import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per (user, code): {@code rate} packets a second on average, bursts of {@code
 * burst}; a packet finding the bucket empty is dropped.
 */
public final class RateLimiter implements ActiveService {
  private volatile double rate = 1000;
  private volatile double burst = 100;
  private final Map<Long, Bucket> buckets = new ConcurrentHashMap<>();

  private static final class Bucket {
    double tokens;
    long lastMillis;
  }

  @Override
  public void configure(Map<String, String> settings) {
    if (settings.containsKey("rate")) {
      rate = Double.parseDouble(settings.get("rate"));
    }
    if (settings.containsKey("burst")) {
      burst = Double.parseDouble(settings.get("burst"));
    }
    if (!(rate > 0) || !(burst >= 1)) {
      throw new IllegalArgumentException(
          "rate-limiter: rate " + rate + ", burst " + burst + " (expected: rate > 0, burst >= 1)");
    }
  }

  @Override
  public Verdict process(PacketContext p) {
    long flow = p.user() * 31 + p.code(); // per user and code
    long now = p.nowMillis();
    Bucket b =
        buckets.computeIfAbsent(
            flow,
            k -> {
              Bucket n = new Bucket();
              n.tokens = burst;
              n.lastMillis = now;
              return n;
            });
    synchronized (b) {
      b.tokens = Math.min(burst, b.tokens + (now - b.lastMillis) * rate / 1000.0);
      b.lastMillis = Math.max(b.lastMillis, now);
      if (b.tokens < 1) {
        return Verdict.DROP;
      }
      b.tokens -= 1;
      return Verdict.FORWARD;
    }
  }
}
