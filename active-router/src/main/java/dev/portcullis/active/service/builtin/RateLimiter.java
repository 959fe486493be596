package dev.portcullis.active.service.builtin;

import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;
import dev.portcullis.support.TokenBucket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A token bucket per (user, code): {@code rate} packets a second on average, bursts of {@code
 * burst}; a packet finding the bucket empty is dropped.
 */
public final class RateLimiter implements ActiveService {
  private volatile double rate = 1000;
  private volatile double burst = 100;
  private final Map<Long, TokenBucket> buckets = new ConcurrentHashMap<>();

  @Override
  public void configure(Map<String, String> settings) {
    // Checked before either is set: refused settings leave the running ones in force.
    double r = settings.containsKey("rate") ? Double.parseDouble(settings.get("rate")) : rate;
    double b = settings.containsKey("burst") ? Double.parseDouble(settings.get("burst")) : burst;
    if (!(r > 0) || !(b >= 1)) {
      throw new IllegalArgumentException(
          "rate-limiter: rate " + r + ", burst " + b + " (expected: rate > 0, burst >= 1)");
    }
    rate = r;
    burst = b;
  }

  @Override
  public Verdict process(PacketContext p) {
    long flow = p.user() * 31 + p.code(); // per user and code
    long now = p.nowMillis() * 1_000_000L;
    TokenBucket b = buckets.computeIfAbsent(flow, k -> new TokenBucket(rate, burst, now));
    synchronized (b) {
      return b.tryTake(now) ? Verdict.FORWARD : Verdict.DROP;
    }
  }
}
