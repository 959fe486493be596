package dev.portcullis.pcmm.cmts;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientAccept;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsDecodeFailure;
import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionSet;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.pcmm.AfterI02;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmFormatException;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.PcmmObjects;
import dev.portcullis.cops.pcmm.TrafficProfile;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.NettySetup;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Simulated CMTSs, each listening on its own loopback port. A policy server that connects gets a
 * Client-Open (client type 0x800A, PEPID the CMTS's name, the Version Info in a ClientSI), and
 * after its Client-Accept a REQ (R-Type configuration) whose handle carries the gates; the CMTS
 * then sends keep-alives at a third of the KA timer. Gates are kept by the CMTS, not by the
 * connection: a policy server that reconnects finds them (or not, after {@link Cmts#forget}).
 */
public final class CmtsSimulator extends Lifecycle.Bound {
  /** How a simulated CMTS behaves. */
  public record Profile(
      Set<String> serviceClasses,
      int gatesPerSubscriber,
      int major,
      int minor,
      boolean keepAlives) {
    /**
     * Service classes "VoIP_UP", "VoIP_DN", "BE"; 64 gates a subscriber; version 1.0; keep-alives
     * at a third of the KA timer.
     */
    public static final Profile DEFAULT =
        new Profile(Set.of("VoIP_UP", "VoIP_DN", "BE"), 64, 1, 0, true);

    public Profile {
      serviceClasses = Set.copyOf(serviceClasses);
    }

    /** This profile without keep-alives: a CMTS gone silent after its REQ. */
    public Profile silent() {
      return new Profile(serviceClasses, gatesPerSubscriber, major, minor, false);
    }
  }

  private final EventLoopGroup group;
  private final List<Cmts> cmtss = new ArrayList<>();

  /** Starts {@code count} CMTSs named cmts-1 to cmts-N on free loopback ports. */
  public CmtsSimulator(int count, Profile profile) {
    this(java.util.Collections.nCopies(count, new InetSocketAddress("127.0.0.1", 0)), profile);
  }

  /** Starts a CMTS on each address (port 0: a free one), named cmts-1 to cmts-N in order. */
  public CmtsSimulator(List<InetSocketAddress> listen, Profile profile) {
    NettySetup.beforeNetty();
    Transport t = Transport.best();
    group = t.group(Math.min(2, Runtime.getRuntime().availableProcessors()));
    try {
      for (int i = 1; i <= listen.size(); i++) {
        Cmts c = new Cmts("cmts-" + i, profile);
        Channel server =
            new ServerBootstrap()
                .group(group)
                .channel(t.serverChannel())
                .childHandler(
                    new ChannelInitializer<SocketChannel>() {
                      @Override
                      protected void initChannel(SocketChannel ch) {
                        c.connections.add(ch);
                        ch.pipeline()
                            .addLast(new CopsDecoder())
                            .addLast(new CopsEncoder())
                            .addLast(c.new Session());
                      }
                    })
                .bind(listen.get(i - 1))
                .syncUninterruptibly()
                .channel();
        c.address = (InetSocketAddress) server.localAddress();
        c.connections.add(server);
        cmtss.add(c);
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  public List<Cmts> cmtss() {
    return List.copyOf(cmtss);
  }

  public Cmts cmts(String name) {
    return cmtss.stream().filter(c -> c.name.equals(name)).findFirst().orElseThrow();
  }

  /** Every CMTS by name and address: what a policy server is given. */
  public Map<String, InetSocketAddress> addresses() {
    Map<String, InetSocketAddress> m = new java.util.LinkedHashMap<>();
    cmtss.forEach(c -> m.put(c.name, c.address));
    return m;
  }

  /** Gates held on all CMTSs. */
  public int gates() {
    return cmtss.stream().mapToInt(c -> c.gates.size()).sum();
  }

  @Override
  public void close() {
    cmtss.forEach(c -> c.connections.close().awaitUninterruptibly(2_000));
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    stoppedNow();
  }

  /** One simulated CMTS: its gates and what it counted. */
  public static final class Cmts {
    private final String name;
    private final Profile profile;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Map<Integer, Held> gates = new ConcurrentHashMap<>();
    private final Map<java.net.InetAddress, AtomicLong> perSubscriber = new ConcurrentHashMap<>();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong deleted = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong echoes = new AtomicLong();
    private final AtomicLong queried = new AtomicLong();
    private final AtomicLong deviations = new AtomicLong();
    private final AtomicLong synchs = new AtomicLong();
    private volatile InetSocketAddress address;

    /** A gate: the Gate-Set that made it, and the PSID it was set under (-1: none). */
    private record Held(GateMessage set, long psid) {}

    /** A connection before any PDP-Config: no PSID. */
    private static final long NO_PSID = -1;

    private volatile boolean loseNextAnswer;

    Cmts(String name, Profile profile) {
      this.name = name;
      this.profile = profile;
    }

    public String name() {
      return name;
    }

    public InetSocketAddress address() {
      return address;
    }

    /** Gates held now. */
    public int gates() {
      return gates.size();
    }

    /** Gates made by a Gate-Set (not counting modifications), deleted, and -Err answers sent. */
    public long created() {
      return created.get();
    }

    public long deleted() {
      return deleted.get();
    }

    public long refused() {
      return refused.get();
    }

    /** Policy-server connections this CMTS opened (sent a Client-Open on). */
    public long opened() {
      return opened.get();
    }

    /** Keep-alives the policy server echoed. */
    public long echoes() {
      return echoes.get();
    }

    /**
     * What policy servers wrote against the specification and was read anyway (a service class name
     * without its terminating zero).
     */
    public long deviations() {
      return deviations.get();
    }

    /** Synch-Requests answered. */
    public long synchs() {
      return synchs.get();
    }

    /** Gate-Infos answered (-Ack or -Err). */
    public long queried() {
      return queried.get();
    }

    /**
     * The next Gate-Set is carried out but its answer never sent: the connection is dropped instead
     * (a Gate-Set-Ack lost with its connection), so the policy server holds it in doubt.
     */
    public void loseNextAnswer() {
      loseNextAnswer = true;
    }

    /** Drops every policy-server connection (the gates stay, as on a CMTS). */
    public void dropConnections() {
      for (Channel ch : connections) {
        if (ch.parent() != null) {
          ch.close();
        }
      }
    }

    /** Forgets a gate as a CMTS that lost it would; true if it had it. */
    public boolean forget(int gateId) {
      Held h = gates.remove(gateId);
      if (h != null) {
        perSubscriber.get(subscriber(h.set())).decrementAndGet();
      }
      return h != null;
    }

    /**
     * Reports a gate's new state to every policy server connected (Gate-Report-State, as a CMTS
     * does when a gate is committed or closed); a closed gate ({@code IDLE}) is forgotten here.
     * True if the gate is held.
     */
    public boolean reportState(int gateId, int state, int reason) {
      Held h = gates.get(gateId);
      if (h == null) {
        return false;
      }
      if (state == PcmmObject.GateState.IDLE) {
        forget(gateId);
      }
      GateMessage m =
          GateMessage.of(
              new PcmmObject.TransactionId(0, GateCommand.GATE_REPORT_STATE),
              h.set().amid(),
              h.set().subscriber(),
              new PcmmObject.GateId(gateId),
              new PcmmObject.GateState(state, reason));
      for (Channel ch : connections) {
        if (ch.parent() != null) {
          ch.writeAndFlush(PcmmCops.report(handle(name), m));
        }
      }
      return true;
    }

    /**
     * The CMTS's Client Handle: its name, zero-padded to a multiple of 4 octets. RFC 2748 lets a
     * handle have any length (its object then carries padding the Length does not count), but
     * OpenDaylight's COPS stack, a policy server in use, steps from object to object by the Length
     * alone and loses its place after a padded one; deployed CMTSs use 4-octet handles.
     */
    static Handle handle(String name) {
      byte[] n = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      return new Handle(Bytes.of(java.util.Arrays.copyOf(n, (n.length + 3) & ~3)));
    }

    /** The Gate IDs held now. */
    public Set<Integer> gateIds() {
      return Set.copyOf(gates.keySet());
    }

    private static java.net.InetAddress subscriber(GateMessage m) {
      return m.subscriber().address();
    }

    /** One policy server's connection. */
    final class Session extends SimpleChannelInboundHandler<Object> {
      private final Handle handle = handle(name);

      /** The PSID of the policy server's PDP-Config on this connection, or NO_PSID. */
      private long psid = NO_PSID;

      private ScheduledFuture<?> keepAlive;

      @Override
      public void channelActive(ChannelHandlerContext ctx) {
        ClientSI version =
            new ClientSI(
                false,
                PcmmObjects.encode(
                    List.of(new PcmmObject.VersionInfo(profile.major(), profile.minor()))));
        ctx.writeAndFlush(
            new ClientOpen(PcmmCops.CLIENT_TYPE, false, new PepId(name), version, null, null));
        opened.incrementAndGet();
      }

      @Override
      protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ClientAccept cat) {
          long period = Math.max(1, cat.kaTimer().seconds() * 1000L / 3);
          if (profile.keepAlives()) {
            keepAlive =
                ctx.executor()
                    .scheduleAtFixedRate(
                        () -> ctx.writeAndFlush(new KeepAlive(false, null)),
                        period,
                        period,
                        TimeUnit.MILLISECONDS);
          }
          ctx.writeAndFlush(
              Request.of(PcmmCops.CLIENT_TYPE, handle, new Context(Context.R_CONFIGURATION, 0)));
        } else if (msg instanceof Decision d && d.handle().equals(handle)) {
          List<GateMessage> answers = answers(d, this);
          if (loseNextAnswer
              && answers.size() == 1
              && answers.get(0).command() == GateCommand.GATE_SET_ACK) {
            loseNextAnswer = false;
            ctx.close(); // made, and the answer lost with the connection
            return;
          }
          for (GateMessage a : answers) {
            ctx.write(PcmmCops.report(handle, a), ctx.voidPromise()); // flushed per read batch
          }
        } else if (msg instanceof KeepAlive) {
          echoes.incrementAndGet();
        } else if (msg instanceof CopsDecodeFailure
            || msg instanceof dev.portcullis.cops.ClientClose) {
          ctx.close();
        }
      }

      @Override
      public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        if (keepAlive != null) {
          keepAlive.cancel(false);
        }
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
      }
    }

    /**
     * The CMTS's answer to a DEC on no connection (no PSID), or null for one it does not answer.
     */
    GateMessage answer(Decision d) {
      List<GateMessage> a = answers(d, null);
      return a.isEmpty() ? null : a.get(0);
    }

    /**
     * The CMTS's answers to a DEC on {@code session} (null: none): one for a gate command, one per
     * gate and a Synch-Complete for a Synch-Request; none for a DEC it cannot answer.
     */
    List<GateMessage> answers(Decision d, Session session) {
      GateMessage m;
      try {
        m = PcmmCops.of(d, deviation -> deviations.incrementAndGet());
      } catch (PcmmFormatException e) {
        refused.incrementAndGet();
        GateMessage err = unreadable(d, e);
        return err == null ? List.of() : List.of(err);
      }
      GateCommand c = m.command();
      boolean laterIssue = profile.major() > 1;
      if (c == null
          || !c.fromPolicyServer()
          || (!laterIssue && (c == GateCommand.PDP_CONFIG || c == GateCommand.SYNCH_REQUEST))
          || c == GateCommand.MSG_RECEIPT) {
        return List.of(
            err(m, GateCommand.INVALID_GATE_CMD_ERR, PcmmErrorCode.UNKNOWN_GATE_COMMAND, 0));
      }
      if (c == GateCommand.PDP_CONFIG || c == GateCommand.SYNCH_REQUEST) {
        return laterIssue(m, session);
      }
      return List.of(answer(m, c, session == null ? NO_PSID : session.psid));
    }

    /**
     * PDP-Config and Synch-Request, as this simulator reads the issues after I02 (docs/pcmm.md):
     * PDP-Config sets the connection's PSID and is acknowledged with it; a Synch-Request is
     * answered with one Synch-Report per gate set under that PSID (with its whole gate data when
     * the Report Type asks for it), then a Synch-Complete.
     */
    private List<GateMessage> laterIssue(GateMessage m, Session session) {
      int txn = m.transactionId().id();
      PcmmObject.PacketCableError missing = m.missing();
      GateCommand err =
          m.command() == GateCommand.PDP_CONFIG
              ? GateCommand.PDP_CONFIG_ERR
              : GateCommand.INVALID_GATE_CMD_ERR;
      if (missing != null) {
        return List.of(err(m, err, PcmmErrorCode.MISSING_REQUIRED_OBJECT, missing.subcode()));
      }
      AfterI02.Psid psid = m.first(AfterI02.Psid.class);
      if (m.command() == GateCommand.PDP_CONFIG) {
        if (session != null) {
          session.psid = Integer.toUnsignedLong(psid.id());
        }
        return List.of(
            GateMessage.of(new PcmmObject.TransactionId(txn, GateCommand.PDP_CONFIG_ACK), psid));
      }
      long under =
          psid != null
              ? Integer.toUnsignedLong(psid.id())
              : session == null ? NO_PSID : session.psid;
      boolean complete =
          m.first(AfterI02.SynchOptions.class).reportType()
              == AfterI02.SynchOptions.COMPLETE_GATE_DATA;
      List<GateMessage> out = new ArrayList<>();
      gates.forEach(
          (id, h) -> {
            if (h.psid() != under) {
              return;
            }
            List<PcmmObject> l = new ArrayList<>();
            l.add(new PcmmObject.TransactionId(txn, GateCommand.SYNCH_REPORT));
            l.add(h.set().amid());
            l.add(h.set().subscriber());
            l.add(new PcmmObject.GateId(id));
            if (complete) {
              l.add(h.set().gateSpec());
              l.add(h.set().trafficProfile());
              l.addAll(h.set().classifiers());
            }
            l.add(new PcmmObject.GateState(PcmmObject.GateState.AUTHORIZED, 0));
            out.add(new GateMessage(l));
          });
      synchs.incrementAndGet();
      List<PcmmObject> done = new ArrayList<>();
      done.add(new PcmmObject.TransactionId(txn, GateCommand.SYNCH_COMPLETE));
      if (psid != null) {
        done.add(psid);
      }
      out.add(new GateMessage(done));
      return out;
    }

    private GateMessage answer(GateMessage m, GateCommand c, long psid) {
      GateCommand errCommand =
          c == GateCommand.GATE_SET
              ? GateCommand.GATE_SET_ERR
              : c == GateCommand.GATE_INFO
                  ? GateCommand.GATE_INFO_ERR
                  : GateCommand.GATE_DELETE_ERR;
      PcmmObject.PacketCableError missing = m.missing();
      if (missing != null) {
        return err(m, errCommand, PcmmErrorCode.MISSING_REQUIRED_OBJECT, missing.subcode());
      }
      if (!m.unknown().isEmpty()) {
        PcmmObject.Unknown u = m.unknown().get(0);
        return err(
            m,
            errCommand,
            PcmmErrorCode.INVALID_OBJECT,
            PcmmErrorCode.objectSubcode(u.sNum(), u.sType()));
      }
      switch (c) {
        case GATE_SET:
          return set(m, psid);
        case GATE_INFO:
          queried.incrementAndGet();
          {
            Held h = gates.get(m.gateId().id());
            if (h == null) {
              return err(m, errCommand, PcmmErrorCode.UNKNOWN_GATE_ID, 0);
            }
            List<PcmmObject> l = ack(m, GateCommand.GATE_INFO_ACK, m.gateId());
            for (PcmmObject o : h.set().objects()) {
              if (o instanceof PcmmObject.GateSpec
                  || o instanceof TrafficProfile
                  || o instanceof dev.portcullis.cops.pcmm.PcmmClassifier) {
                l.add(o);
              }
            }
            l.add(new PcmmObject.GateUsageInfo(0, false));
            l.add(new PcmmObject.GateTimeInfo(0));
            l.add(new PcmmObject.GateState(PcmmObject.GateState.AUTHORIZED, 0));
            return new GateMessage(l);
          }
        case GATE_DELETE:
          if (!forget(m.gateId().id())) {
            return err(m, errCommand, PcmmErrorCode.UNKNOWN_GATE_ID, 0);
          }
          deleted.incrementAndGet();
          return new GateMessage(ack(m, GateCommand.GATE_DELETE_ACK, m.gateId()));
        default:
          return err(m, GateCommand.INVALID_GATE_CMD_ERR, PcmmErrorCode.UNKNOWN_GATE_COMMAND, 0);
      }
    }

    private GateMessage set(GateMessage m, long psid) {
      if (m.trafficProfile() instanceof TrafficProfile.ServiceClassName scn
          && !profile.serviceClasses().contains(scn.name())) {
        return err(m, GateCommand.GATE_SET_ERR, PcmmErrorCode.UNDEFINED_SERVICE_CLASS_NAME, 0);
      }
      if (m.gateId() != null) { // a modification of a gate this CMTS holds
        if (gates.replace(m.gateId().id(), new Held(m, psid)) == null) {
          return err(m, GateCommand.GATE_SET_ERR, PcmmErrorCode.UNKNOWN_GATE_ID, 0);
        }
        return new GateMessage(ack(m, GateCommand.GATE_SET_ACK, m.gateId()));
      }
      AtomicLong n = perSubscriber.computeIfAbsent(subscriber(m), a -> new AtomicLong());
      if (n.incrementAndGet() > profile.gatesPerSubscriber()) {
        n.decrementAndGet();
        return err(m, GateCommand.GATE_SET_ERR, PcmmErrorCode.INSUFFICIENT_RESOURCES, 0);
      }
      int id;
      do {
        id = ThreadLocalRandom.current().nextInt();
      } while (id == 0 || gates.putIfAbsent(id, new Held(m, psid)) != null);
      created.incrementAndGet();
      return new GateMessage(ack(m, GateCommand.GATE_SET_ACK, new PcmmObject.GateId(id)));
    }

    /**
     * The -Err for a command that cannot be read as a whole, when its Transaction ID can (and names
     * a Policy Server's command): the error the reader found, with the AMID, Subscriber ID and Gate
     * ID where they come before what could not be read. Without a Transaction ID there is nothing
     * to answer with: dropped.
     */
    private static GateMessage unreadable(Decision d, PcmmFormatException e) {
      Bytes data = null;
      for (DecisionSet s : d.decisions()) {
        if (s.clientSpecific() != null) {
          data = s.clientSpecific().data();
        }
      }
      PcmmObject.TransactionId t = data == null ? null : GateMessage.leadingTransactionId(data);
      GateCommand c = t == null ? null : t.gateCommand();
      if (c == null || !c.fromPolicyServer()) {
        return null;
      }
      GateCommand errCommand =
          switch (c) {
            case GATE_SET -> GateCommand.GATE_SET_ERR;
            case GATE_INFO -> GateCommand.GATE_INFO_ERR;
            case GATE_DELETE -> GateCommand.GATE_DELETE_ERR;
            default -> GateCommand.INVALID_GATE_CMD_ERR;
          };
      List<PcmmObject> l = new ArrayList<>();
      l.add(new PcmmObject.TransactionId(t.id(), errCommand));
      for (PcmmObject o : PcmmObjects.readable(data)) {
        if (o instanceof PcmmObject.Amid
            || o instanceof PcmmObject.SubscriberId
            || o instanceof PcmmObject.GateId) {
          l.add(o);
        }
      }
      l.add(e.toError());
      return new GateMessage(l);
    }

    private static List<PcmmObject> ack(GateMessage m, GateCommand c, PcmmObject.GateId id) {
      List<PcmmObject> l = new ArrayList<>();
      l.add(new PcmmObject.TransactionId(m.transactionId().id(), c));
      l.add(m.amid());
      l.add(m.subscriber());
      l.add(id);
      return l;
    }

    private GateMessage err(GateMessage m, GateCommand c, PcmmErrorCode code, int subcode) {
      refused.incrementAndGet();
      List<PcmmObject> l = new ArrayList<>();
      l.add(new PcmmObject.TransactionId(m.transactionId().id(), c));
      if (m.amid() != null) {
        l.add(m.amid());
      }
      if (m.subscriber() != null) {
        l.add(m.subscriber());
      }
      if (m.gateId() != null) {
        l.add(m.gateId());
      }
      l.add(new PcmmObject.PacketCableError(code, subcode));
      return new GateMessage(l);
    }
  }
}
