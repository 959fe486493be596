package dev.portcullis.pep.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.support.ManualTimebase;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request states behind reused grants, without sockets: what admits, what parks a request state
 * and when its DRQ goes, and the orders in which its tasks can reach the books' loop.
 */
class GrantAnchorsTest {
  private static final ProxyConfig.Listener ECHO = listener("echo");
  private static final Duration HOUR = Duration.ofHours(1);

  private final ManualTimebase time = new ManualTimebase();
  private final List<String> deleted = new ArrayList<>();
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  /** The books' loop: the anchors' owner, where their timers run (when the test runs it). */
  private final EmbeddedChannel books = newChannel();

  private final GrantAnchors anchors = new GrantAnchors(deleted::add, time, books.eventLoop(), 2);

  private EmbeddedChannel newChannel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    channels.add(ch);
    return ch;
  }

  private static ProxyConfig.Listener listener(String name) {
    InetSocketAddress a = new InetSocketAddress("127.0.0.1", 1);
    return new ProxyConfig.Listener(
        name,
        a,
        a,
        name,
        AccessMode.READ_WRITE,
        false,
        List.of(),
        null,
        null,
        10,
        null,
        HOUR,
        false,
        true);
  }

  private ProxiedConnection conn(String handle, String subject, ProxyConfig.Listener l) {
    return new ProxiedConnection(handle, l, newChannel(), subject, true);
  }

  /** A connection whose Install gave an hour's grant, then ended: its request state parked. */
  private ProxiedConnection parked(String handle, String subject, ProxyConfig.Listener l) {
    ProxiedConnection c = conn(handle, subject, l);
    anchors.granted(c, HOUR);
    assertTrue(anchors.park(c), "kept for the grant");
    return c;
  }

  @AfterEach
  void close() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
  }

  /**
   * Whether a new connection of {@code subject} on {@code l} is admitted on a grant (it then ends).
   */
  private boolean admits(String subject, ProxyConfig.Listener l) {
    ProxiedConnection c = conn("probe-" + channels.size(), subject, l);
    boolean admitted = anchors.admit(c);
    anchors.left(c);
    return admitted;
  }

  @Test
  void aGrantAdmitsUntilItsValidityEndsAndItsParkedStateIsDeletedThen() throws Exception {
    ProxiedConnection first = conn("echo-1", "alice", ECHO);
    anchors.granted(first, HOUR);
    assertTrue(admits("alice", ECHO));
    assertFalse(admits("bob", ECHO));
    assertFalse(admits("alice", listener("other")), "a grant is per listener");

    assertTrue(anchors.park(first), "its connection ended: the request state stays");
    assertEquals(List.of(), deleted);
    assertEquals(1, anchors.parked());
    EmbeddedChannel loop = books;
    time.advance(Duration.ofMinutes(59));
    loop.runPendingTasks();
    assertEquals(List.of(), deleted);
    time.advance(Duration.ofMinutes(1));
    loop.runPendingTasks();
    assertEquals(List.of("echo-1"), deleted, "deleted when the grant ends");
    assertFalse(admits("alice", ECHO));
    assertEquals(0, anchors.size());
  }

  @Test
  void aChangedInstallMovesTheGrantsEndOrEndsIt() throws Exception {
    ProxiedConnection first = parked("echo-1", "alice", ECHO);
    EmbeddedChannel loop = books;
    GrantAnchors.Key k = anchors.regranted("echo-1", Duration.ofSeconds(2));
    assertEquals(new GrantAnchors.Key("alice", first.scope), k);
    time.advance(Duration.ofSeconds(3));
    assertFalse(admits("alice", ECHO), "2 s from the change, not the hour it was given first");
    assertEquals(List.of("echo-1"), deleted, "parked, nothing on it: deleted");

    ProxiedConnection second = parked("echo-2", "alice", ECHO);
    EmbeddedChannel loop2 = books;
    anchors.regranted("echo-2", Duration.ofHours(3)); // longer: the hour's timer must not end it
    time.advance(HOUR);
    loop2.runPendingTasks();
    assertTrue(admits("alice", ECHO), "the timer set for the hour found it moved, and waits on");
    time.advance(Duration.ofHours(2));
    loop2.runPendingTasks();
    assertEquals(List.of("echo-1", "echo-2"), deleted);

    ProxiedConnection third = parked("echo-3", "alice", ECHO);
    assertTrue(admits("alice", ECHO));
    anchors.regranted(third.handle, null); // the new decision gives no validity: no reuse
    assertFalse(admits("alice", ECHO));
    assertEquals(List.of("echo-1", "echo-2", "echo-3"), deleted);
    assertNull(anchors.regranted("not-an-anchor", HOUR));
    loop.runPendingTasks();
  }

  @Test
  void whatWasAdmittedOnAGrantKeepsItsRequestStatePastTheGrantUntilItEnds() throws Exception {
    ProxiedConnection first = parked("echo-1", "alice", ECHO);
    ProxiedConnection reused = conn("echo-reused-1", "alice", ECHO);
    assertTrue(anchors.admit(reused));
    time.advance(HOUR); // the grant ends: it admits no more
    assertFalse(admits("alice", ECHO));
    assertEquals(List.of(), deleted, "a connection still stands on it: a Remove must reach it");
    assertEquals("alice", anchors.removed("echo-1"), "and one does, naming whom to cut");
    assertEquals(List.of("echo-1"), deleted);

    ProxiedConnection second = parked("echo-2", "bob", ECHO);
    ProxiedConnection bobs = conn("echo-reused-2", "bob", ECHO);
    assertTrue(anchors.admit(bobs));
    time.advance(HOUR);
    assertFalse(admits("bob", ECHO));
    anchors.left(bobs); // the last connection on it ends: deleted now
    assertEquals(List.of("echo-1", "echo-2"), deleted);
    assertEquals(0, anchors.size());
  }

  @Test
  void anExpiredAnchorFoundOnALookUpIsLetGoThere() throws Exception {
    ProxiedConnection first = parked("echo-1", "alice", ECHO);
    time.advance(HOUR); // the timer's task is queued on the loop, not run yet
    assertFalse(admits("alice", ECHO));
    assertEquals(List.of("echo-1"), deleted);
  }

  @Test
  void aConnectionEndedBeforeItsInstallArrivedAnchorsNothing() {
    ProxiedConnection gone = conn("echo-1", "alice", ECHO);
    assertFalse(anchors.park(gone), "no anchor yet: the caller deletes its request state");
    anchors.granted(gone, HOUR); // the Install was on its way
    assertFalse(admits("alice", ECHO), "nothing the PDP still holds stands behind it");
    assertEquals(0, anchors.size());
  }

  @Test
  void aLaterGrantReplacesTheAnchorAndTheOldStateGoesWhenNothingStandsOnIt() {
    ProxiedConnection first = parked("echo-1", "alice", ECHO);
    ProxiedConnection reused = conn("echo-reused-1", "alice", ECHO);
    assertTrue(anchors.admit(reused));
    ProxiedConnection second = conn("echo-2", "alice", ECHO);
    anchors.granted(second, HOUR);
    assertEquals(List.of(), deleted, "the old state still carries a connection");
    anchors.left(reused);
    assertEquals(List.of("echo-1"), deleted);
    assertEquals(1, anchors.size());
    assertTrue(admits("alice", ECHO), "the newer grant admits");
    assertTrue(anchors.park(second));
  }

  @Test
  void aRemoveOfAnAnchorNamesItsSubjectWhetherOrNotItsConnectionIsThere() {
    ProxiedConnection open = conn("echo-1", "alice", ECHO);
    anchors.granted(open, HOUR);
    assertEquals("alice", anchors.removed("echo-1"), "open: the subject is still revoked");
    assertEquals(List.of(), deleted, "its connection's end deletes it");
    assertFalse(admits("alice", ECHO));
    assertFalse(anchors.park(open));

    ProxiedConnection parked = parked("echo-2", "bob", ECHO);
    assertEquals("bob", anchors.removed("echo-2"));
    assertEquals(List.of("echo-2"), deleted);
    assertNull(anchors.removed("echo-3"), "not an anchor");
  }

  @Test
  void revokingASubjectForgetsItsAnchorsAndADenialStopsOneAdmitting() {
    ProxyConfig.Listener other = listener("other");
    ProxiedConnection echo = conn("echo-1", "alice", ECHO);
    ProxiedConnection elsewhere = conn("other-1", "alice", other);
    anchors.granted(echo, HOUR);
    anchors.granted(elsewhere, HOUR);
    assertTrue(anchors.park(echo));
    assertTrue(anchors.park(elsewhere));
    ProxiedConnection reused = conn("other-reused-1", "alice", other);
    assertTrue(anchors.admit(reused));
    anchors.revoke("alice", reused.scope); // denied there: its grant there admits no more
    assertFalse(admits("alice", other));
    assertTrue(admits("alice", ECHO));
    assertEquals(List.of(), deleted, "other-1 still carries a connection");
    anchors.revoke("alice"); // a Remove of hers: everything goes (the caller cuts what stood)
    assertFalse(admits("alice", ECHO));
    assertEquals(List.of("echo-1", "other-1"), deleted);
    anchors.left(reused); // cut by the caller: nothing more to delete
    assertEquals(List.of("echo-1", "other-1"), deleted);
  }

  @Test
  void oneSubjectKeepsAtMostItsShareAndIdleGrantsYieldOldestFirst() {
    GrantAnchors many = new GrantAnchors(deleted::add, time, books.eventLoop(), 1_000);
    List<ProxiedConnection> alice = new ArrayList<>();
    for (int i = 0; i <= GrantAnchors.PER_SUBJECT; i++) {
      ProxiedConnection c = conn("echo-" + i, "alice", listener("l" + i));
      many.granted(c, HOUR);
      alice.add(c);
    }
    assertEquals(GrantAnchors.PER_SUBJECT, many.size(), "one subject cannot hold them all");
    many.granted(conn("echo-bob", "bob", ECHO), HOUR);
    assertEquals(GrantAnchors.PER_SUBJECT + 1, many.size(), "others still can");
    assertFalse(many.yieldIdle(), "nothing idle: every one still has its connection");
    assertTrue(many.park(alice.get(1)));
    assertTrue(many.park(alice.get(0)));
    ProxiedConnection onFirst = conn("r-0", "alice", listener("l0"));
    assertTrue(many.admit(onFirst)); // echo-0 carries a connection: not idle
    assertTrue(many.yieldIdle());
    assertEquals(
        List.of("echo-1"), deleted, "the oldest idle one, not the one carrying a connection");
    assertFalse(many.yieldIdle());
    many.left(onFirst);
    assertTrue(many.yieldIdle());
    assertEquals(List.of("echo-1", "echo-0"), deleted);
  }

  @Test
  void beyondItsMaximumAGrantIsNotReused() {
    anchors.granted(conn("echo-1", "alice", ECHO), HOUR);
    anchors.granted(conn("echo-2", "bob", ECHO), HOUR);
    anchors.granted(conn("echo-3", "carol", ECHO), HOUR);
    assertFalse(admits("carol", ECHO), "full: carol's connections are asked for");
    anchors.granted(conn("echo-4", "alice", ECHO), HOUR);
    assertTrue(admits("alice", ECHO), "a held key is still renewed when full");
  }
}
