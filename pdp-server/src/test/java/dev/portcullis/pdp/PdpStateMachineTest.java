package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ErrorObject;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.IntegrityTls;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.cops.OpCode;
import dev.portcullis.cops.PdpAddress;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.Reason;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.ReportTypeObject;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.SyncStateComplete;
import dev.portcullis.cops.SyncStateRequest;
import dev.portcullis.pdp.connection.Liveness;
import dev.portcullis.pdp.connection.PepConnection;
import dev.portcullis.pdp.connection.PepLink;
import dev.portcullis.pdp.connection.Sessions;
import dev.portcullis.pdp.decision.PdpStateMachine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.support.LogLines;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The PDP's RFC 2748 flows, one connection's pipeline driven through an {@link EmbeddedChannel}
 * with hand-written message sequences: bytes in as a PEP would send them, bytes out decoded. Time
 * is the fake clock's and the embedded event loop's, moved together; nothing sleeps.
 */
class PdpStateMachineTest extends EmbeddedPdpTest {

  /** Grants the subjects in {@link #allowed}; remembers what was released. */
  private static final class Engine implements PolicyEngine {
    final Set<String> allowed = new HashSet<>(Set.of("alice"));
    final List<String> released = new ArrayList<>();

    @Override
    public PolicyDecision decide(PolicyRequest r) {
      String who = r.access().subject();
      return allowed.contains(who)
          ? PolicyDecision.grant("allow-" + who, "listed")
          : PolicyDecision.deny("default", "not listed");
    }

    @Override
    public void released(PolicyRequest r) {
      released.add(r.access().subject());
    }

    @Override
    public String describe() {
      return allowed + " allowed";
    }
  }

  private final Engine engine = new Engine();

  private void connect(List<PdpConfig.Redirect> redirects, int rate) throws Exception {
    connect(engine, redirects, rate, 3);
  }

  private void connect() throws Exception {
    connect(List.of(), 1000);
  }

  @Test
  void openIsAcceptedWithTheKeepAliveTimerAndStartsTheIdleWatch() throws Exception {
    connect();
    Liveness liveness = ch.pipeline().get(Liveness.class);
    assertEquals(0, liveness.keepAliveNanos(), "no keep-alive watch before an open");
    open();
    assertEquals(
        Duration.ofSeconds(30).toNanos(),
        liveness.keepAliveNanos(),
        "keep-alive watch after the first Client-Accept");
    assertEquals(1, pdp.connections.size());
    assertEquals("gw-1", pdp.connections.iterator().next().pepId());
  }

  @Test
  void unsupportedClientTypeIsClosed() throws Exception {
    connect();
    send(ClientOpen.of(0x7777, "gw-1"));
    assertClose(next(), ErrorCode.UNSUPPORTED_CLIENT_TYPE);
    assertFalse(ch.isOpen());
  }

  @Test
  void secondOpenOfOneTypeAndSecondPepIdAreProtocolErrors() throws Exception {
    connect();
    open();
    send(ClientOpen.of(TYPE, "gw-1"));
    assertClose(next(), ErrorCode.BAD_MESSAGE_FORMAT);
    assertFalse(ch.isOpen());

    connect();
    open();
    send(ClientOpen.of(0x7777, "gw-2"));
    assertClose(next(), ErrorCode.BAD_MESSAGE_FORMAT);
    assertFalse(ch.isOpen());
  }

  @Test
  void keepAlivesAreEchoedEvenBeforeAnOpen() throws Exception {
    connect();
    send(new KeepAlive(false, null));
    assertEquals(new KeepAlive(true, null), next());
    open();
    send(new KeepAlive(false, null));
    assertEquals(new KeepAlive(true, null), next());
  }

  @Test
  void noOpenWithinTheHandshakeTimeCloses() throws Exception {
    connect();
    advance(Duration.ofMillis(4999));
    assertTrue(ch.isOpen());
    advance(Duration.ofMillis(2));
    assertFalse(ch.isOpen());
    assertNull(next());
  }

  @Test
  void anOpenStopsTheHandshakeDeadline() throws Exception {
    connect();
    open();
    advance(Duration.ofSeconds(6));
    assertTrue(ch.isOpen());
  }

  @Test
  void keepAliveLossClosesEveryOpenType() throws Exception {
    connect();
    open();
    // what the PEP sends keeps the connection: 20 s, a keep-alive, 20 s more
    advance(Duration.ofSeconds(20));
    send(new KeepAlive(false, null));
    assertEquals(new KeepAlive(true, null), next());
    advance(Duration.ofSeconds(20));
    assertTrue(ch.isOpen(), "read 20 s ago: alive");
    assertNull(next());
    // then 30 s with nothing read
    advance(Duration.ofMillis(9_999));
    assertTrue(ch.isOpen(), "29.999 s of silence");
    advance(Duration.ofMillis(2));
    ClientClose cc = next(ClientClose.class);
    assertEquals(TYPE, cc.clientType());
    assertEquals(ErrorCode.COMMUNICATION_FAILURE.code(), cc.error().code());
    ch.runPendingTasks();
    assertFalse(ch.isOpen());
    assertEquals(List.of(), List.copyOf(pdp.connections));
  }

  @Test
  void requestsAreDecidedPerHandle() throws Exception {
    connect();
    open();
    send(req("h1", "alice"));
    Decision d1 = next(Decision.class);
    assertTrue(d1.solicited());
    assertEquals(Handle.of("h1"), d1.handle());
    assertEquals(DecisionCommand.INSTALL, command(d1));
    send(req("h2", "bob"));
    Decision d2 = next(Decision.class);
    assertEquals(DecisionCommand.REMOVE, command(d2));
    assertEquals(2, pdp.stats.decisions());
    assertEquals(2, pdp.connections.iterator().next().openHandles());
    // An update on a handle replaces its state (RFC 2748 3.1) and counts no new handle.
    send(req("h2", "alice"));
    assertEquals(DecisionCommand.INSTALL, command(next(Decision.class)));
    assertEquals(2, pdp.connections.iterator().next().openHandles());
  }

  @Test
  void aRequestWithoutItsClientSiGetsAnErrorDecision() throws Exception {
    connect();
    open();
    send(Request.of(TYPE, Handle.of("h1"), CTX));
    Decision d = next(Decision.class);
    assertEquals(
        ErrorCode.MANDATORY_CLIENT_SPECIFIC_INFO_MISSING.code(), d.error().code(), d.toString());
    assertTrue(ch.isOpen());
  }

  @Test
  void handlesBeyondTheLimitAreRefusedOneByOne() throws Exception {
    connect(); // limit: 3 handles
    open();
    for (int i = 0; i < 3; i++) {
      send(req("h" + i, "alice"));
      assertEquals(DecisionCommand.INSTALL, command(next(Decision.class)));
    }
    send(req("h3", "alice"));
    assertEquals(ErrorCode.UNABLE_TO_PROCESS.code(), next(Decision.class).error().code());
    send(req("h0", "bob")); // an update of a held handle still works
    assertEquals(DecisionCommand.REMOVE, command(next(Decision.class)));
  }

  /**
   * What a PEP can repeat at will (requests over the handle limit, reports on unknown handles,
   * undecodable access requests) is logged once per kind and minute, then summarised: a flood is
   * not a flood of log lines.
   */
  @Test
  void refusalsAPepCanRepeatAreLoggedOncePerKind() throws Exception {
    try (LogLines log = LogLines.all()) {
      connect(); // limit: 3 handles
      open();
      for (int i = 0; i < 3; i++) {
        send(req("h" + i, "alice"));
        next(Decision.class);
      }
      for (int i = 0; i < 50; i++) {
        send(req("x" + i, "alice"));
        send(
            new Report(
                TYPE,
                false,
                Handle.of("unknown"),
                new ReportTypeObject(ReportType.SUCCESS),
                null,
                null));
      }
      List<String> warnings = log.warnings();
      assertEquals(2, warnings.size(), warnings.toString());
      assertTrue(ch.isOpen());
    }
  }

  @Test
  void aRequestBeforeItsOpenEndsTheConnection() throws Exception {
    connect();
    send(req("h1", "alice"));
    assertClose(next(), ErrorCode.UNSUPPORTED_CLIENT_TYPE);
    assertFalse(ch.isOpen());
  }

  @Test
  void reportsAreCountedAndAnswerNothing() throws Exception {
    connect();
    open();
    send(req("h1", "alice"));
    next(Decision.class);
    send(
        new Report(
            TYPE, true, Handle.of("h1"), new ReportTypeObject(ReportType.SUCCESS), null, null));
    send(
        new Report(
            TYPE, true, Handle.of("zz"), new ReportTypeObject(ReportType.FAILURE), null, null));
    assertNull(next());
    assertEquals(2, pdp.stats.reports());
    assertTrue(ch.isOpen());
  }

  @Test
  void deleteReleasesTheRequestState() throws Exception {
    connect();
    open();
    send(req("h1", "alice"));
    next(Decision.class);
    send(new DeleteRequest(TYPE, false, Handle.of("h1"), new Reason(2, 0), null));
    assertNull(next());
    assertEquals(List.of("alice"), engine.released);
    assertEquals(0, pdp.connections.iterator().next().openHandles());
  }

  @Test
  void synchronizationBothWays() throws Exception {
    connect();
    open();
    PepConnection c = pdp.connections.iterator().next();
    c.synchronize(TYPE);
    assertEquals(new SyncStateRequest(TYPE, false, null, null), next());
    c.synchronize(0x7777); // not open: nothing
    assertNull(next());
    send(req("h1", "alice"));
    next(Decision.class);
    send(new SyncStateComplete(TYPE, false, null, null));
    assertNull(next());
    assertTrue(ch.isOpen());
  }

  @Test
  void aPepComingFromAnotherPdpIsAskedToSynchronize() throws Exception {
    connect();
    InetAddress other = InetAddress.getByName("192.0.2.7");
    send(
        new ClientOpen(
            TYPE, false, new PepId("gw-1"), null, new PdpAddress(true, other, 3288), null));
    next(ClientAccept.class);
    assertEquals(new SyncStateRequest(TYPE, false, null, null), next());

    connect();
    InetAddress self = InetAddress.getLoopbackAddress();
    send(
        new ClientOpen(
            TYPE, false, new PepId("gw-1"), null, new PdpAddress(true, self, 3288), null));
    next(ClientAccept.class);
    assertNull(next(), "a PEP back at this PDP is not asked again");
  }

  @Test
  void clientCloseFromThePepReleasesItsState() throws Exception {
    connect();
    open();
    send(req("h1", "alice"));
    next(Decision.class);
    send(ClientClose.of(TYPE, ErrorCode.SHUTTING_DOWN, 0));
    assertNull(next());
    assertEquals(List.of("alice"), engine.released);
    assertFalse(ch.isOpen(), "the last open type closed");
    assertEquals(List.of(), List.copyOf(pdp.connections));
  }

  @Test
  void clientCloseFromThePdpNamesEveryOpenType() throws Exception {
    connect();
    pdp.engines.put(0x7777, engine);
    open();
    send(ClientOpen.of(0x7777, "gw-1"));
    next(ClientAccept.class);
    pdp.connections.iterator().next().closeAll(ErrorCode.SHUTTING_DOWN);
    Set<Integer> closed = new HashSet<>();
    for (int i = 0; i < 2; i++) {
      ClientClose cc = next(ClientClose.class);
      assertEquals(ErrorCode.SHUTTING_DOWN.code(), cc.error().code());
      closed.add(cc.clientType());
    }
    assertEquals(Set.of(TYPE, 0x7777), closed);
    ch.runPendingTasks();
    assertFalse(ch.isOpen());
  }

  @Test
  void redirectsNameThePreferredServer() throws Exception {
    InetAddress to = InetAddress.getByName("192.0.2.9");
    connect(List.of(new PdpConfig.Redirect(Pattern.compile("gw-.*"), null, to, 3300)), 1000);
    send(ClientOpen.of(TYPE, "gw-1"));
    ClientClose cc = next(ClientClose.class);
    assertEquals(new ErrorObject(ErrorCode.REDIRECT_TO_PREFERRED_SERVER), cc.error());
    assertEquals(new PdpAddress(false, to, 3300), cc.redirect());
    ch.runPendingTasks();
    assertFalse(ch.isOpen());
  }

  @Test
  void aPolicyChangePushesUnsolicitedDecisionsForChangedStateOnly() throws Exception {
    connect();
    open();
    send(req("h1", "alice"));
    next(Decision.class);
    send(req("h2", "bob"));
    next(Decision.class);
    engine.allowed.add("bob");
    pdp.connections.iterator().next().reevaluate(TYPE, engine);
    Decision push = next(Decision.class);
    assertFalse(push.solicited());
    assertEquals(Handle.of("h2"), push.handle());
    assertEquals(DecisionCommand.INSTALL, command(push));
    assertNull(next(), "alice's decision did not change");
    assertEquals(1, pdp.stats.unsolicitedDecisions());
  }

  @Test
  void malformedInputIsAnsweredAndEndsTheConnection() throws Exception {
    connect();
    open();
    // A REQ whose Context object claims 4 bytes (less than its header).
    byte[] bad = CopsCodec.encode(req("h1", "alice"));
    bad[8 + 8 + 1] = 4; // the Context's length, after the header and the 8-byte handle object
    ch.writeInbound(Unpooled.wrappedBuffer(bad));
    Decision d = next(Decision.class);
    assertEquals(Handle.of("h1"), d.handle());
    assertEquals(ErrorCode.BAD_MESSAGE_FORMAT.code(), d.error().code());
    assertClose(next(), ErrorCode.BAD_MESSAGE_FORMAT);
    assertFalse(ch.isOpen());
    assertEquals(1, pdp.stats.protocolErrors());
  }

  @Test
  void messagesOnlyAPdpSendsAreProtocolErrors() throws Exception {
    connect();
    open();
    send(Decision.error(TYPE, Handle.of("h1"), new ErrorObject(ErrorCode.UNSPECIFIED)));
    assertClose(next(), ErrorCode.BAD_MESSAGE_FORMAT);
    assertFalse(ch.isOpen());
  }

  @Test
  void startTlsIsRefusedByAPdpWithoutTls() throws Exception {
    connect();
    send(
        new ClientOpen(
            0,
            false,
            new PepId("gw-1"),
            null,
            null,
            new IntegrityTls(IntegrityTls.FLAG_START_TLS)));
    ClientClose cc = next(ClientClose.class);
    assertEquals(
        new ErrorObject(ErrorCode.UNKNOWN_OBJECT, ErrorCode.SUB_CODE_TLS_REQUIRED), cc.error());
    assertFalse(ch.isOpen());
  }

  /**
   * Once the PDP has decided to close, nothing the PEP sent is acted on, not even what the rate
   * limiter held back before the decision: a REQ waiting for a token behind a protocol error got
   * its DEC after the Client-Close when "closing" was a handler right after the decoder, where the
   * limiter's backlog had already passed it.
   */
  @Test
  void whatWaitedForATokenIsNotActedOnOnceClosing() throws Exception {
    connect(List.of(), 2); // two messages a second, two at once
    // the Client-Close is held on its way out, as a slow socket would: the channel stays open
    List<Object> held = new ArrayList<>();
    ch.pipeline()
        .addFirst(
            new io.netty.channel.ChannelOutboundHandlerAdapter() {
              @Override
              public void write(
                  io.netty.channel.ChannelHandlerContext ctx,
                  Object msg,
                  io.netty.channel.ChannelPromise promise) {
                held.add(msg);
              }
            });
    ByteBuf burst = Unpooled.buffer();
    burst.writeBytes(CopsCodec.encode(ClientOpen.of(TYPE, "gw-1")));
    burst.writeBytes(CopsCodec.encode(new KeepAlive(false, null))); // the two tokens gone
    burst.writeBytes(CopsCodec.encode(new SyncStateRequest(TYPE, false, null, null))); // PDP's
    burst.writeBytes(CopsCodec.encode(req("h1", "alice")));
    ch.writeInbound(burst); // the SSQ and the REQ wait for tokens, past the decoder
    advance(Duration.ofSeconds(2)); // both tokens back: the SSQ ends the connection, then the REQ
    assertTrue(ch.isOpen(), "the Client-Close is held: still open");
    List<OpCode> out = new ArrayList<>();
    for (Object o : held) {
      for (byte[] m : frames((ByteBuf) o)) {
        out.add(CopsCodec.decode(m).opCode());
      }
    }
    assertEquals(List.of(OpCode.CAT, OpCode.KA, OpCode.CC), out, "nothing after the Client-Close");
  }

  @Test
  void overTheRateMessagesWaitAndNoneIsLost() throws Exception {
    connect(List.of(), 2); // two messages a second, two at once
    ByteBuf burst = Unpooled.buffer();
    for (int i = 0; i < 5; i++) {
      burst.writeBytes(CopsCodec.encode(new KeepAlive(false, null)));
    }
    ch.writeInbound(burst);
    assertNotNull(next());
    assertNotNull(next());
    assertNull(next(), "the third waits for a token");
    assertFalse(ch.config().isAutoRead(), "reading stops while messages wait");
    advance(Duration.ofMillis(499));
    assertNull(next());
    advance(Duration.ofMillis(2));
    assertNotNull(next());
    advance(Duration.ofSeconds(1));
    assertNotNull(next());
    assertNotNull(next());
    assertNull(next());
    assertTrue(ch.config().isAutoRead(), "reading resumes once the backlog is gone");
  }

  @Test
  void connectionsBeyondTheLimitAreClosedAtOnce() throws Exception {
    connect();
    for (int i = 0; i < 10; i++) {
      EmbeddedChannel other = new EmbeddedChannel();
      Sessions none = new Sessions();
      pdp.register(new PdpStateMachine(new PepLink(pdp, other, none), none));
    }
    EmbeddedChannel extra = new EmbeddedChannel(new PdpChannelInitializer(pdp, null));
    assertFalse(extra.isOpen());
    assertEquals(10, pdp.connections.size());
  }
}
