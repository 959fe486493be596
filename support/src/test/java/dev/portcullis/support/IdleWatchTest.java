package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The read-idle watch on the loop's time alone: moved by the test, never slept through. */
class IdleWatchTest {
  /** Counts the idle events that reach the end of the pipeline. */
  private static final class Events extends ChannelInboundHandlerAdapter {
    int idle;

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof IdleWatch.Event) {
        idle++;
      }
    }
  }

  private static void advance(EmbeddedChannel ch, long ms) {
    ch.advanceTimeBy(ms, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
  }

  @Test
  void silenceForThePeriodIsSaidNotBeforeAndAtMostAnEighthLate() {
    Events events = new Events();
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime(); // the loop's clock moves only with advanceTimeBy
    ch.pipeline().addLast(IdleWatch.reads(Duration.ofSeconds(8)), events);
    advance(ch, 7_999);
    assertEquals(0, events.idle, "before the period");
    advance(ch, 1);
    assertEquals(1, events.idle, "8 s of silence from the start");
    advance(ch, 8_000);
    assertEquals(2, events.idle, "and again every period while silent");
    ch.finishAndReleaseAll();
  }

  @Test
  void aReadStartsThePeriodAgain() {
    Events events = new Events();
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    ch.pipeline().addLast(IdleWatch.reads(Duration.ofSeconds(8)), events);
    for (int i = 0; i < 20; i++) {
      advance(ch, 3_000);
      ch.writeInbound("keep-alive");
      ch.readInbound();
    }
    assertEquals(0, events.idle, "a read every 3 s keeps an 8 s watch quiet for a minute");
    // the last read half-way into a slice: idle after 8 s at the earliest, 9 s at the latest
    advance(ch, 500);
    ch.writeInbound("last");
    ch.readInbound();
    advance(ch, 7_999);
    assertEquals(0, events.idle, "not before the period");
    advance(ch, 1_000);
    assertEquals(1, events.idle, "within an eighth of the period after it");
    ch.finishAndReleaseAll();
  }

  /**
   * Both ways: a write counts, and so does the peer taking queued bytes; bytes that stay queued (a
   * peer that stopped reading) do not.
   */
  @Test
  void trafficCountsWritesAndTheOutputsProgressButNotAStalledOutput() {
    Events events = new Events();
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    ch.pipeline().addLast(IdleWatch.traffic(Duration.ofSeconds(8)), events);
    for (int i = 0; i < 20; i++) {
      advance(ch, 3_000);
      ch.writeOneOutbound("out"); // written, not flushed: queued
      ch.flushOutbound(); // and taken
      ch.readOutbound();
    }
    assertEquals(0, events.idle, "writes every 3 s keep it from idle for a minute");
    ch.writeOneOutbound("stalled"); // queued, never taken
    advance(ch, 8_999);
    assertEquals(0, events.idle, "not before the period");
    advance(ch, 1_000);
    assertEquals(1, events.idle, "bytes that stay queued are no traffic");
    ch.flushOutbound(); // the peer takes them
    ch.readOutbound();
    advance(ch, 7_999);
    assertEquals(1, events.idle, "their progress counted");
    ch.finishAndReleaseAll();
  }

  @Test
  void aClosedChannelIsWatchedNoMore() {
    Events events = new Events();
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    ch.pipeline().addLast(IdleWatch.reads(Duration.ofSeconds(8)), events);
    ch.close();
    advance(ch, 60_000);
    assertEquals(0, events.idle);
    assertThrows(IllegalArgumentException.class, () -> IdleWatch.reads(Duration.ofNanos(7)));
  }
}
