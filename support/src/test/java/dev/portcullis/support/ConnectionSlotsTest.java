package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Slots per address and in all: the oldest idle connection makes room, a served one never. */
class ConnectionSlotsTest {
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  /** A connection (every embedded channel comes from the same, non-IP, address). */
  private EmbeddedChannel conn() {
    EmbeddedChannel ch = new EmbeddedChannel();
    channels.add(ch);
    return ch;
  }

  @AfterEach
  void close() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
  }

  @Test
  void anAddressAtItsShareMakesRoomWithItsOldestIdleConnection() {
    ConnectionSlots slots = new ConnectionSlots(10, 2);
    EmbeddedChannel first = conn();
    EmbeddedChannel second = conn();
    assertTrue(slots.admit(first));
    assertTrue(slots.admit(second));
    EmbeddedChannel third = conn();
    assertTrue(slots.admit(third), "the oldest idle one makes room");
    assertFalse(first.isOpen(), "closed to make room");
    assertTrue(second.isOpen());
    assertEquals(2, slots.open());
    assertEquals(1, slots.evicted.sum());

    ConnectionSlots.serving(second, true);
    ConnectionSlots.serving(third, true);
    EmbeddedChannel fourth = conn();
    assertFalse(slots.admit(fourth), "both are being served: none is closed for it");
    assertFalse(fourth.isOpen());
    assertEquals(1, slots.refused.sum());

    ConnectionSlots.serving(second, false); // answered, idle between requests
    assertTrue(slots.admit(conn()));
    assertFalse(second.isOpen());
    third.close();
    assertEquals(1, slots.open(), "a close gives its slot back, once");
  }

  @Test
  void limitsAreChecked() {
    assertThrows(IllegalArgumentException.class, () -> new ConnectionSlots(2, 3));
    assertThrows(IllegalArgumentException.class, () -> new ConnectionSlots(0, 0));
  }
}
