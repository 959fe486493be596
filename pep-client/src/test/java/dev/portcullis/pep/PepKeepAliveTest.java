package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.KaTimer;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.support.IdleWatch;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The PEP's keep-alive duties and its reconnect policy, without a network and without sleeping. */
class PepKeepAliveTest {
  private static ClientAccept accept(int type, int ka) {
    return new ClientAccept(type, true, new KaTimer(ka), null, null);
  }

  @Test
  void keepAlivesGoOutBetweenAQuarterAndThreeQuartersOfTheTimer() {
    EmbeddedChannel ch = new EmbeddedChannel(new PepKeepAlive("gw-1"));
    ch.freezeTime(); // the loop's clock moves only with advanceTimeBy, not with the wall clock
    ch.writeInbound(accept(0xC0A5, 8));
    assertInstanceOf(ClientAccept.class, ch.readInbound(), "the CAT goes on");
    assertNotNull(ch.pipeline().get(IdleWatch.class));
    ch.advanceTimeBy(1999, TimeUnit.MILLISECONDS);
    ch.runPendingTasks();
    assertNull(ch.readOutbound(), "nothing before a quarter of the timer");
    ch.advanceTimeBy(4001, TimeUnit.MILLISECONDS);
    ch.runPendingTasks();
    assertEquals(new KeepAlive(false, null), ch.readOutbound(), "one by three quarters");
    ch.finishAndReleaseAll();
  }

  @Test
  void aTlsOfferOrAZeroTimerStartsNothing() {
    EmbeddedChannel ch = new EmbeddedChannel(new PepKeepAlive("gw-1"));
    ch.writeInbound(
        new ClientAccept(
            0, true, new KaTimer(8), null, new IntegrityTls(IntegrityTls.FLAG_START_TLS)));
    assertNull(ch.pipeline().get(IdleWatch.class));
    ch.writeInbound(accept(0xC0A5, 0));
    assertNull(ch.pipeline().get(IdleWatch.class));
    ch.advanceTimeBy(1, TimeUnit.HOURS);
    ch.runPendingTasks();
    assertNull(ch.readOutbound());
    ch.finishAndReleaseAll();
  }

  /**
   * A PDP silent for the whole timer is dropped, on the loop's time alone (Netty 4.1's
   * IdleStateHandler read the system's clock, and this test could only fire its event by hand).
   */
  @Test
  void aSilentPdpIsDropped() {
    EmbeddedChannel ch = new EmbeddedChannel(new PepKeepAlive("gw-1"));
    ch.freezeTime();
    ch.writeInbound(accept(0xC0A5, 8));
    ch.readInbound();
    for (int i = 0; i < 4; i++) {
      ch.advanceTimeBy(5, TimeUnit.SECONDS);
      ch.runScheduledPendingTasks();
      while (ch.readOutbound() != null) {
        // the PEP's keep-alives
      }
      ch.writeInbound(new KeepAlive(true, null)); // the PDP's echo: not silent
      ch.readInbound();
    }
    assertTrue(ch.isOpen(), "a PDP that echoes stays");
    ch.advanceTimeBy(8_000, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertTrue(ch.isOpen(), "not before the whole timer");
    ch.advanceTimeBy(1_000, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    ClientClose cc = null;
    for (Object o; (o = ch.readOutbound()) != null; ) {
      if (o instanceof ClientClose c) {
        cc = c;
      }
    }
    assertNotNull(cc, "a silent PDP dropped within an eighth of the timer after it");
    assertEquals(ErrorCode.COMMUNICATION_FAILURE.code(), cc.error().code());
    assertFalse(ch.isOpen());
  }

  @Test
  void reconnectsBackOffAndGoHomeRedirectsAreBounded() {
    InetSocketAddress home = new InetSocketAddress("127.0.0.1", 3288);
    InetSocketAddress other = new InetSocketAddress("127.0.0.1", 3300);
    ReconnectPolicy p = new ReconnectPolicy(home, Duration.ofMillis(50), Duration.ofMillis(150));
    for (int i = 0; i < ReconnectPolicy.MAX_REDIRECTS; i++) {
      assertTrue(p.redirect(other));
    }
    assertFalse(p.redirect(other), "a fourth redirect in a row is refused");
    assertEquals(other, p.target());
    assertEquals(50, p.lost());
    assertEquals(home, p.target(), "a lost connection goes home");
    assertEquals(100, p.lost());
    assertEquals(150, p.lost());
    assertTrue(p.redirect(other), "the count starts again after a loss");
    p.accepted();
    assertEquals(50, p.lost(), "and the back-off after an accept");
  }
}
