package dev.portcullis.active.service.builtin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.portcullis.active.service.ActiveService.Verdict;
import dev.portcullis.active.service.PacketContext;
import java.nio.ByteBuffer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RateLimiterTest {
  /** A packet of {@code user} at {@code now} milliseconds; nothing else is read. */
  private static PacketContext packet(long user, long now) {
    return new PacketContext() {
      @Override
      public String router() {
        return "r1";
      }

      @Override
      public long user() {
        return user;
      }

      @Override
      public int code() {
        return 7;
      }

      @Override
      public long sequence() {
        return 0;
      }

      @Override
      public String source() {
        return "10.0.0.1";
      }

      @Override
      public String destination() {
        return "10.0.0.2";
      }

      @Override
      public boolean encrypted() {
        return false;
      }

      @Override
      public int payloadLength() {
        return 0;
      }

      @Override
      public ByteBuffer payload() {
        return ByteBuffer.allocate(0);
      }

      @Override
      public void replacePayload(byte[] payload) {}

      @Override
      public long nowMillis() {
        return now;
      }
    };
  }

  @Test
  void aBurstPassesThenTheRateHolds() {
    RateLimiter r = new RateLimiter();
    r.configure(Map.of("rate", "10", "burst", "3")); // a token every 100 ms
    assertEquals(Verdict.FORWARD, r.process(packet(1, 1000)));
    assertEquals(Verdict.FORWARD, r.process(packet(1, 1000)));
    assertEquals(Verdict.FORWARD, r.process(packet(1, 1000)));
    assertEquals(Verdict.DROP, r.process(packet(1, 1050)));
    assertEquals(
        Verdict.FORWARD, r.process(packet(2, 1050)), "another user has a bucket of its own");
    assertEquals(Verdict.FORWARD, r.process(packet(1, 1100)));
    assertEquals(Verdict.DROP, r.process(packet(1, 1100)));
    // A clock stepping back neither refills nor takes away.
    assertEquals(Verdict.DROP, r.process(packet(1, 500)));
    assertEquals(Verdict.FORWARD, r.process(packet(1, 1200)));
  }

  @Test
  void nonsenseSettingsAreRefused() {
    RateLimiter r = new RateLimiter();
    r.configure(Map.of("rate", "10", "burst", "1"));
    assertThrows(IllegalArgumentException.class, () -> r.configure(Map.of("rate", "0")));
    assertThrows(IllegalArgumentException.class, () -> r.configure(Map.of("burst", "0.5")));
    // The refused settings changed nothing: still 10 a second, burst 1.
    assertEquals(Verdict.FORWARD, r.process(packet(1, 0)));
    assertEquals(Verdict.DROP, r.process(packet(1, 50)));
    assertEquals(Verdict.FORWARD, r.process(packet(1, 100)));
  }
}
