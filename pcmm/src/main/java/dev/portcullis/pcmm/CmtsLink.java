package dev.portcullis.pcmm;

import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.ClientTypes;
import dev.portcullis.cops.CopsDecodeFailure;
import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.pcmm.AfterI02;
import dev.portcullis.cops.pcmm.Deviation;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmFormatException;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.PcmmObjects;
import dev.portcullis.pcmm.GateRefusedException.Kind;
import dev.portcullis.support.Backoff;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.IdleWatch;
import dev.portcullis.support.LogSummary;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy server's connection to one CMTS, kept up: it connects (PCMM's direction), accepts the
 * CMTS's Client-Open, takes the handle of its REQ, answers its keep-alives, and carries gate
 * control messages as transactions (a Transaction ID per outstanding message, an answer or a
 * timeout for each). Lost, it fails what was outstanding and connects again with back-off.
 */
final class CmtsLink {
  private static final Logger log = LoggerFactory.getLogger(CmtsLink.class);

  /** What the link tells its policy server, on the link's event loop. */
  interface Events {
    void ready(CmtsLink link, boolean again);

    void lost(CmtsLink link, String why);

    void reported(CmtsLink link, GateMessage m);
  }

  private final String name;
  private final InetSocketAddress address;
  private final Bootstrap bootstrap;
  private final PolicyServer.Settings settings;
  private final Events events;
  private final Backoff backoff;
  private final PeerStats stats = new PeerStats();

  /**
   * Gate commands this CMTS left unanswered: the first of each command a minute at WARN, the rest
   * counted in a summary line (a CMTS that answers nothing must not fill the log). Its clock only
   * paces log lines.
   */
  private final LogSummary unanswered;

  private volatile Connection current;
  private volatile boolean closed;
  private boolean everReady;

  /**
   * When the connection now up became ready (System.nanoTime), or -1. The back-off starts over only
   * after a connection that stayed ready for {@code reconnect-max}: a REQ alone never resets it, or
   * a CMTS that misbehaves right after opening is reconnected ~8 times a second.
   */
  private long readySince = -1;

  private boolean refusedSinceReady;
  private boolean warnedVersion;
  private int failedConnects;

  CmtsLink(
      String name,
      InetSocketAddress address,
      Bootstrap bootstrap,
      EventLoop loop,
      PolicyServer.Settings settings,
      Clock clock,
      Events events) {
    this.name = name;
    this.address = address;
    this.settings = settings;
    this.events = events;
    this.backoff = new Backoff(settings.reconnectMin(), settings.reconnectMax());
    this.unanswered =
        new LogSummary(
            log, "gate commands unanswered by CMTS " + name, Duration.ofMinutes(1), clock);
    this.bootstrap =
        bootstrap
            .clone(loop) // one loop a link: its back-off, transactions and state on one thread
            .option(ChannelOption.TCP_NODELAY, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, settings.answerTimeout().toMillis()))
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        // many Gate-Sets or -Deletes at once (a policy change) leave in a few
                        // writes, not one each; a flush inside a read waits for its end
                        .addLast(new FlushConsolidationHandler(256, true))
                        .addLast(IdleWatch.reads(Duration.ofSeconds(settings.kaSeconds())))
                        .addLast(new CopsDecoder())
                        .addLast(new CopsEncoder())
                        .addLast(new Connection());
                  }
                });
  }

  String name() {
    return name;
  }

  InetSocketAddress address() {
    return address;
  }

  /** What this CMTS has shown of itself: version, deviations, unreadable and unanswered. */
  PeerStats stats() {
    return stats;
  }

  /** The most transactions outstanding at once on the current connection (0 without one). */
  int mostOutstanding() {
    Connection c = current;
    return c == null ? 0 : c.pending.most();
  }

  /** True while a CMTS has opened and sent its REQ on the current connection. */
  boolean isReady() {
    Connection c = current;
    return c != null && c.handle != null && c.channel.isActive();
  }

  void connect() {
    if (closed) {
      return;
    }
    bootstrap
        .connect(address)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (f.isSuccess()) {
                    failedConnects = 0;
                    return;
                  }
                  if (failedConnects++ == 0) {
                    log.warn(
                        "CMTS {} at {}: cannot connect ({}); trying again with back-off",
                        name,
                        HostPort.of(address),
                        GateRefusedException.why(f.cause()));
                  }
                  again(f.channel());
                });
  }

  private void again(Channel ch) {
    if (!closed) {
      ch.eventLoop().schedule(this::connect, backoff.nextDelayMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Sends {@code command} with {@code objects} after a fresh Transaction ID, and completes with the
   * CMTS's answer to it; fails with {@link GateRefusedException} when the CMTS is not connected,
   * the connection is lost, or no answer comes within the answer timeout.
   */
  CompletableFuture<GateMessage> exchange(GateCommand command, List<PcmmObject> objects) {
    CompletableFuture<GateMessage> answer = new CompletableFuture<>();
    Connection c = current;
    if (c == null || c.handle == null || !c.channel.isActive()) {
      answer.completeExceptionally(
          new GateRefusedException(
              Kind.UNAVAILABLE,
              command.description() + ": CMTS " + name + " is not connected",
              null));
      return answer;
    }
    if (c.channel.eventLoop().inEventLoop()) {
      c.send(command, objects, answer); // an answer's callback sending the next: no hand-over
    } else {
      c.channel.eventLoop().execute(() -> c.send(command, objects, answer));
    }
    return answer;
  }

  /**
   * Completes true once the current connection's CMTS acknowledged the PDP-Config (it takes
   * Synch-Requests), false when it speaks I02, refused it, or there is no connection.
   */
  CompletableFuture<Boolean> configured() {
    Connection c = current;
    return c == null ? CompletableFuture.completedFuture(false) : c.configured;
  }

  /**
   * Asks the CMTS for every gate set under this server's PSID (Synch-Request, full, complete gate
   * data): each Synch-Report goes to {@code reports} on the link's event loop, and the future
   * completes with the CMTS's Synch-Complete (or fails as {@link #exchange} does; its deadline is
   * pushed back by each report).
   */
  CompletableFuture<GateMessage> synch(Consumer<GateMessage> reports) {
    CompletableFuture<GateMessage> complete = new CompletableFuture<>();
    Connection c = current;
    if (c == null || c.handle == null || !c.channel.isActive()) {
      complete.completeExceptionally(
          new GateRefusedException(
              Kind.UNAVAILABLE, "Synch-Request: CMTS " + name + " is not connected", null));
      return complete;
    }
    List<PcmmObject> objects =
        List.of(
            new AfterI02.Psid(settings.psid()),
            new AfterI02.SynchOptions(
                AfterI02.SynchOptions.COMPLETE_GATE_DATA, AfterI02.SynchOptions.FULL));
    c.channel.eventLoop().execute(() -> c.synch(objects, reports, complete));
    return complete;
  }

  /** Connects (again) after {@link #close}: a fleet member taking the CMTS over. */
  void hold() {
    closed = false;
    connect();
  }

  void close() {
    closed = true;
    Connection c = current;
    if (c != null) {
      c.channel.close().awaitUninterruptibly(settings.answerTimeout().toMillis());
    }
  }

  /** One TCP connection to the CMTS and its outstanding transactions (its event loop only). */
  private final class Connection extends SimpleChannelInboundHandler<Object> {
    private final Transactions pending =
        new Transactions(name, settings.answerTimeout(), this::timedOut);
    private Channel channel;

    /** When the CMTS last sent anything on this connection (System.nanoTime). */
    private long lastHeard = System.nanoTime();

    /** The CMTS opened with a later PCMM version than I02's: PDP-Config and Synch are tried. */
    private boolean laterIssue;

    /**
     * True once the CMTS acknowledged this server's PDP-Config (it takes Synch-Requests); false
     * when it speaks I02 or refused it. Completes after the REQ.
     */
    private final CompletableFuture<Boolean> configured = new CompletableFuture<>();

    /** Where each Synch-Request's Synch-Reports go, by its Transaction ID. */
    private final Map<Integer, Consumer<GateMessage>> synchs = new HashMap<>();

    private volatile Handle handle;
    private boolean opened;
    private int unreadable;
    private String lostBecause;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      channel = ctx.channel();
      current = this;
      if (closed) {
        ctx.close();
        return;
      }
      log.debug("CMTS {}: connected to {}", name, HostPort.of(address));
      ctx.executor()
          .schedule(
              () -> {
                if (handle == null && channel.isActive()) {
                  lose(
                      ctx,
                      "no Client-Open and REQ within "
                          + settings.answerTimeout().toSeconds()
                          + " s");
                }
              },
              settings.answerTimeout().toMillis(),
              TimeUnit.MILLISECONDS);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
      lastHeard = System.nanoTime();
      if (lostBecause != null) {
        return; // closing: what else the CMTS sent in this read is not acted on
      }
      if (msg instanceof CopsDecodeFailure f) {
        refuse(
            ctx,
            ErrorCode.BAD_MESSAGE_FORMAT,
            "sent a malformed message: " + f.cause().getMessage());
      } else if (msg instanceof ClientOpen o) {
        open(ctx, o);
      } else if (msg instanceof Request r && opened && r.clientType() == PcmmCops.CLIENT_TYPE) {
        if (handle != null) {
          // RFC 2748 lets a PEP send a REQ again on a handle it holds (an updated request);
          // a CMTS does so right after its first. The same connection, the same gates: nothing is
          // checked again. A new handle is followed, the gates being the CMTS's, not the handle's
          log.debug(
              "CMTS {}: REQ again on this connection (handle {}{}); not a reconnect",
              name,
              r.handle().value().toHex(),
              r.handle().equals(handle) ? ", the same" : ", a new one: gate commands go on it");
          handle = r.handle();
          return;
        }
        boolean again = everReady;
        handle = r.handle();
        everReady = true;
        refusedSinceReady = false;
        readySince = System.nanoTime();
        log.info(
            "CMTS {} at {}: ready (handle {}){}",
            name,
            HostPort.of(address),
            r.handle().value().toHex(),
            again ? ", checking its gates" : "");
        configure();
        events.ready(CmtsLink.this, again);
      } else if (msg instanceof KeepAlive && handle != null) {
        ctx.writeAndFlush(new KeepAlive(true, null), ctx.voidPromise());
      } else if (msg instanceof Report r && handle != null && r.handle().equals(handle)) {
        report(r);
      } else if (msg instanceof DeleteRequest && handle != null) {
        lose(ctx, "it deleted its request state (DRQ): gates cannot be sent on it");
      } else if (msg instanceof ClientClose cc) {
        lose(ctx, "it closed: " + cc.error());
      } else {
        refuse(
            ctx,
            ErrorCode.BAD_MESSAGE_FORMAT,
            "sent " + msg.getClass().getSimpleName() + " out of turn");
      }
    }

    private void open(ChannelHandlerContext ctx, ClientOpen o) {
      if (opened) {
        refuse(ctx, ErrorCode.BAD_MESSAGE_FORMAT, "sent a second Client-Open");
        return;
      }
      if (o.clientType() != PcmmCops.CLIENT_TYPE) {
        refuse(
            ctx,
            ErrorCode.UNSUPPORTED_CLIENT_TYPE,
            "opened client type " + ClientTypes.hex(o.clientType()) + " (expected: 0x800A, PCMM)");
        return;
      }
      PcmmObject.VersionInfo version = null;
      if (o.clientSI() != null && !o.clientSI().named()) {
        try {
          for (PcmmObject p : PcmmObjects.decode(o.clientSI().data(), this::deviated)) {
            if (p instanceof PcmmObject.VersionInfo v) {
              version = v;
            }
          }
        } catch (PcmmFormatException e) {
          log.warn(
              "CMTS {}: unreadable ClientSI in its Client-Open ignored: {}", name, e.getMessage());
        }
      }
      opened = true;
      opened(o, version);
      ctx.writeAndFlush(
          ClientAccept.of(PcmmCops.CLIENT_TYPE, settings.kaSeconds()), ctx.voidPromise());
    }

    /** The CMTS's PCMM version, said once a connection, and a warning when it is newer. */
    private void opened(ClientOpen o, PcmmObject.VersionInfo v) {
      if (v == null) {
        log.info(
            "CMTS {}: Client-Open from PEP {} with no Version Info; taken as PCMM {}.{} (I02)",
            name,
            o.pepId().id(),
            PeerStats.IMPLEMENTED_MAJOR,
            PeerStats.IMPLEMENTED_MINOR);
        return;
      }
      laterIssue =
          v.major() > PeerStats.IMPLEMENTED_MAJOR
              || v.major() == PeerStats.IMPLEMENTED_MAJOR
                  && v.minor() > PeerStats.IMPLEMENTED_MINOR;
      if (stats.opened(v.major(), v.minor()) && !warnedVersion) {
        warnedVersion = true; // once a CMTS: each reconnect says it at INFO
        log.warn(
            "CMTS {}: opened with PCMM version {}.{}, newer than {}.{} (I02) implemented here: gate"
                + " commands are sent as I02 has them; objects of later issues are read where"
                + " known and the rest kept and ignored, so gates work as long as the CMTS"
                + " accepts I02's commands",
            name,
            v.major(),
            v.minor(),
            PeerStats.IMPLEMENTED_MAJOR,
            PeerStats.IMPLEMENTED_MINOR);
      } else {
        log.info(
            "CMTS {}: Client-Open from PEP {}, PCMM version {}.{}",
            name,
            o.pepId().id(),
            v.major(),
            v.minor());
      }
    }

    /**
     * To a CMTS of a later issue, this server's PSID in a PDP-Config, before any gate command on
     * the connection (so that every gate set on it is set under the PSID). A CMTS that refuses it
     * is kept as an I02 CMTS: its gates are checked one by one (Gate-Info) after a reconnect.
     */
    private void configure() {
      if (!laterIssue) {
        configured.complete(false);
        return;
      }
      CompletableFuture<GateMessage> answer = new CompletableFuture<>();
      send(GateCommand.PDP_CONFIG, List.of(new AfterI02.Psid(settings.psid())), answer);
      answer.whenComplete(
          (m, e) -> {
            boolean ok = e == null && m.command() == GateCommand.PDP_CONFIG_ACK;
            if (ok) {
              log.info(
                  "CMTS {}: PDP-Config with PSID {} acknowledged; its gates are synchronised"
                      + " after a reconnect (Synch-Request)",
                  name,
                  Integer.toUnsignedString(settings.psid()));
            } else {
              log.info(
                  "CMTS {}: PDP-Config not acknowledged ({}); its gates are checked one by one"
                      + " (Gate-Info) after a reconnect",
                  name,
                  e != null ? GateRefusedException.why(e) : m);
            }
            configured.complete(ok);
          });
    }

    /** Sends a Synch-Request; each Synch-Report to it goes to {@code reports}. */
    void synch(
        List<PcmmObject> objects,
        Consumer<GateMessage> reports,
        CompletableFuture<GateMessage> complete) {
      if (!channel.isActive() || handle == null || current != this) {
        complete.completeExceptionally(
            new GateRefusedException(
                Kind.UNAVAILABLE, "Synch-Request: connection to CMTS " + name + " lost", null));
        return;
      }
      int txn = send(GateCommand.SYNCH_REQUEST, objects, complete);
      if (txn != 0) {
        synchs.put(txn, reports);
        complete.whenComplete((m, e) -> synchs.remove(txn));
      }
    }

    /** Something the CMTS wrote against the specification, read anyway: counted, said once. */
    private void deviated(Deviation d) {
      if (stats.deviated(d)) {
        log.warn(
            "CMTS {}: wrote {} (not as I02 has it); read anyway, and counted on"
                + " portcullis.pcmm.cmts.deviations (said once per CMTS and kind)",
            name,
            d);
      }
    }

    /**
     * A gate command the answer timeout passed on, said with what is known of the connection: a
     * CMTS that sent something after it left is up and not answering it; one that sent nothing
     * since may be down, or the network between.
     */
    private void timedOut(GateCommand command, int txn, long sentNanos) {
      stats.unanswered();
      long quiet = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastHeard);
      unanswered.warn(
          command.description(),
          "CMTS {}: {} #{} not answered in {} ms; {}",
          name,
          command.description(),
          txn,
          settings.answerTimeout().toMillis(),
          lastHeard - sentNanos > 0
              ? "the CMTS sent other messages since ("
                  + quiet
                  + " ms ago the last), so it is up and did not answer this one"
              : "nothing heard from the CMTS since it left (the last message "
                  + quiet
                  + " ms ago): the CMTS or the network may be stalled; its keep-alives (KA timer "
                  + settings.kaSeconds()
                  + " s) will tell");
    }

    private void report(Report r) {
      GateMessage m;
      try {
        m = PcmmCops.of(r, this::deviated);
      } catch (PcmmFormatException e) {
        stats.unreadable();
        PcmmObject.TransactionId t =
            r.clientSI() == null || r.clientSI().named()
                ? null
                : GateMessage.leadingTransactionId(r.clientSI().data());
        CompletableFuture<GateMessage> f =
            t == null || t.gateCommand() == GateCommand.GATE_REPORT_STATE
                ? null
                : pending.take(t.id());
        if (f != null) {
          // an answer, but not one to act on: the caller learns what was wrong and where (502),
          // not that nothing came (504)
          log.warn(
              "CMTS {}: its answer to transaction #{} ({}) cannot be read: {}",
              name,
              t.id(),
              t.gateCommand() == null
                  ? "Gate Command Type " + t.command()
                  : t.gateCommand().description(),
              e.getMessage());
          f.completeExceptionally(GateRefusedException.unreadable(name, t, e));
          return;
        }
        // no transaction to fail: said once a connection at WARN, so that a CMTS sending nothing
        // else cannot fill the log
        if (unreadable++ == 0) {
          log.warn(
              "CMTS {}: unreadable gate control message ignored (more are logged at DEBUG): {}",
              name,
              e.getMessage());
        } else {
          log.debug("CMTS {}: unreadable gate control message ignored: {}", name, e.getMessage());
        }
        return;
      }
      if (m.command() == GateCommand.SYNCH_REPORT) {
        Consumer<GateMessage> to = synchs.get(m.transactionId().id());
        if (to == null && synchs.size() == 1) {
          // a CMTS that numbers its Synch-Reports on its own: the one synch under way
          to = synchs.values().iterator().next();
        }
        if (to != null) {
          pending.extend(m.transactionId().id()); // thousands of gates may take a while
          to.accept(m);
        } else {
          log.debug("CMTS {}: Synch-Report to no Synch-Request: {}", name, m);
        }
        return;
      }
      CompletableFuture<GateMessage> f =
          m.command() == GateCommand.GATE_REPORT_STATE
              ? null
              : pending.take(m.transactionId().id());
      if (f != null) {
        f.complete(m);
      } else if (m.command() == GateCommand.GATE_REPORT_STATE) {
        events.reported(CmtsLink.this, m);
      } else {
        log.debug("CMTS {}: {} answers no outstanding transaction (late?)", name, m);
      }
    }

    /**
     * Sends {@code command}; its Transaction ID, or 0 when it was not sent ({@code answer} failed).
     */
    int send(GateCommand command, List<PcmmObject> objects, CompletableFuture<GateMessage> answer) {
      if (!channel.isActive() || handle == null || current != this) {
        answer.completeExceptionally(
            new GateRefusedException(
                Kind.UNAVAILABLE,
                command.description() + ": connection to CMTS " + name + " lost",
                null));
        return 0;
      }
      int txn = pending.open(command, answer, channel.eventLoop());
      if (txn == 0) {
        return 0;
      }
      List<PcmmObject> all = new ArrayList<>(objects.size() + 1);
      all.add(new PcmmObject.TransactionId(txn, command));
      all.addAll(objects);
      channel
          .writeAndFlush(PcmmCops.decision(handle, new GateMessage(all)))
          .addListener(
              w -> {
                if (!w.isSuccess()) {
                  pending.fail(
                      txn,
                      answer,
                      new GateRefusedException(
                          Kind.UNAVAILABLE,
                          command.description()
                              + ": not sent to CMTS "
                              + name
                              + ": "
                              + GateRefusedException.why(w.cause()),
                          null));
                }
              });
      return txn;
    }

    private void refuse(ChannelHandlerContext ctx, ErrorCode code, String why) {
      lostBecause = why;
      // once until the CMTS is ready again: a CMTS that misbehaves on every reconnect is not a
      // warning every few seconds
      if (!refusedSinceReady) {
        refusedSinceReady = true;
        log.warn("CMTS {}: {}; closing, and connecting again with back-off", name, why);
      } else {
        log.debug("CMTS {}: {}; closing", name, why);
      }
      ctx.writeAndFlush(ClientClose.of(PcmmCops.CLIENT_TYPE, code, 0))
          .addListener(ChannelFutureListener.CLOSE);
    }

    private void lose(ChannelHandlerContext ctx, String why) {
      lostBecause = why;
      ctx.close();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt == IdleWatch.Event.READ_IDLE) {
        lose(ctx, "nothing from it in " + settings.kaSeconds() + " s (the KA timer)");
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      lose(ctx, cause instanceof IOException ? GateRefusedException.why(cause) : cause.toString());
      if (!(cause instanceof IOException)) {
        log.warn("CMTS {}: unexpected failure", name, cause);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      String why = lostBecause != null ? lostBecause : "connection closed";
      GateRefusedException lost =
          new GateRefusedException(
              Kind.NO_ANSWER, "connection to CMTS " + name + " lost: " + why, null);
      pending.failAll(lost);
      configured.complete(false);
      handle = null;
      if (readySince >= 0 && System.nanoTime() - readySince >= settings.reconnectMax().toNanos()) {
        backoff.reset(); // it served a while: a fresh loss, retried at once
      }
      readySince = -1;
      if (closed) {
        return;
      }
      if (opened) {
        log.warn("CMTS {} at {}: lost ({}); connecting again", name, HostPort.of(address), why);
        events.lost(CmtsLink.this, why);
      }
      again(ctx.channel());
    }
  }
}
