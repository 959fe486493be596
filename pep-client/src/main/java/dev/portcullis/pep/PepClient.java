package dev.portcullis.pep;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.CopsDecodeFailure;
import dev.portcullis.cops.CopsDecoder;
import dev.portcullis.cops.CopsEncoder;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.CopsMessage.ClientClose;
import dev.portcullis.cops.CopsMessage.Decision;
import dev.portcullis.cops.CopsMessage.Request;
import dev.portcullis.cops.CopsObject;
import dev.portcullis.cops.CopsObject.ClientSI;
import dev.portcullis.cops.CopsObject.Context;
import dev.portcullis.cops.CopsObject.ErrorObject;
import dev.portcullis.cops.CopsObject.Handle;
import dev.portcullis.cops.CopsObject.IntegrityTls;
import dev.portcullis.cops.CopsObject.PdpAddress;
import dev.portcullis.cops.CopsObject.Reason;
import dev.portcullis.cops.CopsObject.ReportTypeObject;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.access.AccessDecision;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.integrity.IntegritySession;
import dev.portcullis.cops.integrity.SigningCopsEncoder;
import dev.portcullis.cops.tls.CopsTls;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An asynchronous COPS PEP for one client type on one PDP (RFC 2748 sections 2.3 to 4).
 *
 * <pre>{@code
 * try (PepClient pep = PepClient.builder()
 *     .pdp(new InetSocketAddress("127.0.0.1", 3288))
 *     .pepId("gw-1")
 *     .clientType(AccessRequest.CLIENT_TYPE)
 *     .build()) {
 *   pep.open().get();
 *   PepDecision d = pep.request("conn-42", context, accessRequest).get();
 * }
 * }</pre>
 *
 * <p>What it does on its own: sends keep-alives at a random point between 1/4 and 3/4 of the PDP's
 * keep-alive timer and drops a PDP that stays silent for the whole timer; keeps every installed
 * decision and tells the {@link PepListener} when the PDP changes one; answers a synchronize
 * request by re-sending its requests and then Synchronize Complete; follows a redirect
 * (Client-Close 12 with a PDP address, up to 3 hops); reconnects with exponential back-off, telling
 * the PDP which PDP it was last connected to; deletes a request whose decision does not arrive in
 * time (DRQ, reason Timeout).
 *
 * <p>Thread-safe: every method hands its work to the connection's event loop.
 */
public final class PepClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PepClient.class);
  private static final int MAX_REDIRECTS = 3;

  private final InetSocketAddress home;
  private final String pepId;
  private final int clientType;
  private final PepListener listener;
  private final Duration requestTimeout;
  private final Duration reconnectInitial;
  private final Duration reconnectMax;
  private final Duration connectTimeout;
  private final PepSecurity security;
  private final NioEventLoopGroup group;
  private final EventLoop loop;

  // Event-loop state.
  private final Map<String, Pending> pending = new HashMap<>();
  private final Map<String, Installed> installed = new LinkedHashMap<>();
  private Channel channel;
  private InetSocketAddress target;
  private InetSocketAddress lastPdp;
  private CompletableFuture<Void> opening;
  private Throwable lastError; // the last connection error, to explain a close while opening
  private boolean accepted;
  private boolean closing;
  private int redirects;
  private long backoffMillis;
  private long lastRead;
  private int keepAliveSeconds;
  // TLS: the current context (its session cache is what gets resumed), and the reuse policy's
  // bookkeeping for the session line it holds.
  private CopsTls tls;
  private long tlsLineStarted;
  private int tlsResumptions;
  private int tlsLine; // names the session line in the client session cache
  private boolean tlsUp;
  private final AtomicLong fullHandshakes = new AtomicLong();
  private final AtomicLong resumedHandshakes = new AtomicLong();

  private record Pending(CompletableFuture<PepDecision> future, ScheduledFuture<?> timeout) {}

  private record Installed(Context context, AccessRequest request, PepDecision decision) {}

  private PepClient(Builder b) {
    this.home = b.pdp;
    this.target = b.pdp;
    this.pepId = b.pepId;
    this.clientType = b.clientType;
    this.listener = b.listener;
    this.requestTimeout = b.requestTimeout;
    this.reconnectInitial = b.reconnectInitial;
    this.reconnectMax = b.reconnectMax;
    this.connectTimeout = b.connectTimeout;
    this.security = b.security;
    this.group = new NioEventLoopGroup(1);
    this.loop = group.next();
    this.backoffMillis = reconnectInitial.toMillis();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects and opens the client type. Completes when the PDP accepts (CAT); fails with a {@link
   * PepException} carrying the error of a Client-Close (e.g. unsupported client type), or with the
   * connect failure.
   */
  public CompletableFuture<Void> open() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    loop.execute(
        () -> {
          if (accepted) {
            f.complete(null);
            return;
          }
          opening = f;
          closing = false;
          connect();
        });
    return f;
  }

  /**
   * Sends a request and returns the PDP's decision. One solicited decision may be outstanding per
   * handle (RFC 2748 section 4.3): a second request on a handle still waiting fails at once.
   *
   * @param handle names the request state; reuse it to update the request
   */
  public CompletableFuture<PepDecision> request(
      String handle, Context context, AccessRequest access) {
    Objects.requireNonNull(handle, "handle");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(access, "access");
    CompletableFuture<PepDecision> f = new CompletableFuture<>();
    loop.execute(
        () -> {
          if (!admit(handle, f)) {
            return;
          }
          installed.put(
              handle,
              new Installed(
                  context,
                  access,
                  installed.containsKey(handle) ? installed.get(handle).decision() : null));
          channel.writeAndFlush(requestMessage(handle, context, access.toClientSI(), false));
        });
    return f;
  }

  /**
   * Sends one request with {@code si} as its ClientSI, for client types other than the access one
   * (enrolment); the request state is not kept for re-sending after a reconnect. The decision's
   * {@link PepDecision#clientData()} holds what the PDP answered.
   */
  public CompletableFuture<PepDecision> exchange(String handle, Context context, ClientSI si) {
    Objects.requireNonNull(handle, "handle");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(si, "si");
    CompletableFuture<PepDecision> f = new CompletableFuture<>();
    loop.execute(
        () -> {
          if (admit(handle, f)) {
            channel.writeAndFlush(requestMessage(handle, context, si, false));
          }
        });
    return f;
  }

  /**
   * On the event loop: registers {@code f} as the pending decision of {@code handle}, with its
   * timeout; or fails it (not open, or a decision already pending) and returns false.
   */
  private boolean admit(String handle, CompletableFuture<PepDecision> f) {
    if (!accepted) {
      f.completeExceptionally(new PepException(0, 0, "not open: call open() and wait for it"));
      return false;
    }
    if (pending.containsKey(handle)) {
      f.completeExceptionally(
          new IllegalStateException(
              "handle " + handle + " already has a request waiting for its decision"));
      return false;
    }
    pending.put(
        handle,
        new Pending(
            f,
            loop.schedule(
                () -> timedOut(handle), requestTimeout.toMillis(), TimeUnit.MILLISECONDS)));
    return true;
  }

  private Request requestMessage(String handle, Context context, ClientSI si, boolean solicited) {
    return new Request(
        clientType, solicited, handle(handle), context, null, null, List.of(si), null, null);
  }

  private static Handle handle(String h) {
    return new Handle(Bytes.of(h.getBytes(StandardCharsets.UTF_8)));
  }

  private static String handle(Handle h) {
    return new String(h.value().toArray(), StandardCharsets.UTF_8);
  }

  /** Reports the outcome of applying a decision (or an accounting update). */
  public void report(String handle, ReportType type) {
    loop.execute(
        () -> {
          if (accepted) {
            channel.writeAndFlush(
                new CopsMessage.Report(
                    clientType,
                    type != ReportType.ACCOUNTING,
                    handle(handle),
                    new ReportTypeObject(type),
                    null,
                    null));
          }
        });
  }

  /** Deletes a request state (DRQ) and forgets its decision. */
  public void delete(String handle, ReasonCode reason) {
    loop.execute(
        () -> {
          installed.remove(handle);
          Pending p = pending.remove(handle);
          if (p != null) {
            p.timeout().cancel(false);
            p.future()
                .completeExceptionally(new PepException(0, 0, "request " + handle + " deleted"));
          }
          if (accepted) {
            channel.writeAndFlush(
                new CopsMessage.DeleteRequest(
                    clientType, false, handle(handle), new Reason(reason), null));
          }
        });
  }

  /** The installed decisions by handle, as the PDP last stated them. */
  public CompletableFuture<Map<String, PepDecision>> installed() {
    CompletableFuture<Map<String, PepDecision>> f = new CompletableFuture<>();
    loop.execute(
        () -> {
          Map<String, PepDecision> m = new LinkedHashMap<>();
          installed.forEach(
              (h, i) -> {
                if (i.decision() != null) {
                  m.put(h, i.decision());
                }
              });
          f.complete(m);
        });
    return f;
  }

  /** True once the client type is accepted and until the connection ends. */
  public boolean isOpen() {
    return accepted;
  }

  /** The PDP this client is connected (or connecting) to; changes with redirects. */
  public InetSocketAddress pdp() {
    return target;
  }

  /** Sends a Client-Close and closes; does not reconnect. Waits at most a few seconds. */
  @Override
  public void close() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(
        () -> {
          closing = true;
          failAll(new PepException(0, 0, "client closed"));
          if (channel != null && channel.isActive()) {
            ChannelFuture w =
                accepted
                    ? channel.writeAndFlush(ClientClose.of(clientType, ErrorCode.UNSPECIFIED, 0))
                    : channel.newSucceededFuture();
            w.addListener(x -> channel.close().addListener(y -> done.complete(null)));
          } else {
            done.complete(null);
          }
          accepted = false;
        });
    try {
      done.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.debug("close did not finish cleanly: {}", e.toString());
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    if (tls != null) {
      tls.close();
    }
  }

  /**
   * Closes the connection with a Client-Close and opens a new one (the TLS session is resumed when
   * the reuse policy allows); completes when the PDP accepts again. Installed requests are sent
   * again. For measuring connection set-up and for moving to a new session on purpose.
   */
  public CompletableFuture<Void> reconnect() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    loop.execute(
        () -> {
          Channel old = channel;
          channel = null; // its closing is not a lost PDP
          boolean was = accepted;
          accepted = false;
          closing = false;
          opening = f;
          failAll(new PepException(0, 0, "reconnecting"));
          if (old != null && old.isActive()) {
            (was
                    ? old.writeAndFlush(ClientClose.of(clientType, ErrorCode.UNSPECIFIED, 0))
                    : old.newSucceededFuture())
                .addListener(x -> old.close().addListener(y -> connect()));
          } else {
            connect();
          }
        });
    return f;
  }

  /** TLS handshakes so far that verified the PDP's certificate (full handshakes). */
  public long fullHandshakes() {
    return fullHandshakes.get();
  }

  /** TLS handshakes so far that resumed an earlier session. */
  public long resumedHandshakes() {
    return resumedHandshakes.get();
  }

  // ---- connection -------------------------------------------------------------------------------

  private void connect() {
    lastError = null;
    InetSocketAddress to = target;
    if (security != null && security.tls() != null) {
      try {
        prepareTls();
      } catch (SSLException | RuntimeException e) {
        // A missing or unreadable own certificate, key or trust file (Netty reports those as
        // IllegalArgumentException): fail the open with the reason, never a trace and a timeout.
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
          root = root.getCause();
        }
        PepException x =
            new PepException(
                ErrorCode.CLIENT_FAILURE.code(),
                0,
                "TLS unusable: "
                    + root.getMessage()
                    + (security.certificate() != null && !Files.exists(security.certificate())
                        ? " (a PEP's own certificate and key are written by pep-client enrol)"
                        : ""));
        if (opening != null) {
          opening.completeExceptionally(x);
          opening = null;
          closing = true;
        }
        return;
      }
    }
    IntegritySession integrity =
        security == null || security.keys() == null
            ? null
            : new IntegritySession(security.keys(), Clock.systemUTC(), false);
    if (integrity != null) {
      integrity.signOutgoing(true);
    }
    new Bootstrap()
        .group(loop)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
        .handler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                // An if, not a conditional expression: JDK 25's javac records the two encoders'
                // common superclass (netty-codec's) in the stack map, JDK 17's does not, and the
                // dependency check would then disagree between the two.
                ChannelHandler encoder;
                if (integrity == null) {
                  encoder = CopsEncoder.INSTANCE;
                } else {
                  encoder = new SigningCopsEncoder(integrity);
                }
                ch.pipeline()
                    .addLast(new CopsDecoder(CopsCodec.DEFAULT_MAX_MESSAGE_SIZE, integrity))
                    .addLast(encoder)
                    .addLast(new Handler(integrity));
              }
            })
        .connect(to)
        .addListener(
            (ChannelFuture f) -> {
              if (!f.isSuccess()) {
                PepException e =
                    new PepException(
                        ErrorCode.COMMUNICATION_FAILURE.code(),
                        0,
                        "cannot connect to " + to + ": " + f.cause().getMessage());
                if (opening != null) {
                  opening.completeExceptionally(e);
                  opening = null;
                  closing = true; // the caller asked and was told; no silent retries
                } else {
                  scheduleReconnect(e);
                }
                return;
              }
              channel = f.channel();
              lastRead = System.nanoTime();
              tlsUp = false;
              if (security != null && security.tls() != null && security.initiateTls()) {
                // RFC 4261 section 5.1: client-type 0 Client-Open with Integrity-TLS.
                channel.writeAndFlush(
                    new CopsMessage.ClientOpen(
                        0,
                        false,
                        new CopsObject.PepId(pepId),
                        null,
                        null,
                        new IntegrityTls(IntegrityTls.FLAG_START_TLS)));
              } else {
                sendOpen(channel);
              }
            });
  }

  private void sendOpen(Channel ch) {
    PdpAddress last =
        lastPdp == null ? null : new PdpAddress(true, lastPdp.getAddress(), lastPdp.getPort());
    ch.writeAndFlush(
        new CopsMessage.ClientOpen(
            clientType, false, new CopsObject.PepId(pepId), null, last, null));
  }

  /**
   * Keeps offering the cached TLS session while the reuse policy allows; once it is spent, moves to
   * a new session line, so the next handshake is a full one.
   *
   * <p>Client session caches are keyed by the peer's host and port as given to the engine. The port
   * given is the PDP's plus 65536 times the line number (the engines use it only as that key), so a
   * new line finds nothing cached. Making a new client context would do the same at 20 to 100 ms a
   * time (measured); this costs nothing. Lines repeat after 32768, by when a session of the first
   * is long past any {@code max-age} worth setting.
   */
  private void prepareTls() throws SSLException {
    if (tls == null) {
      tls = security.newTls();
      tlsLineStarted = System.nanoTime();
      return;
    }
    PepSecurity.SessionReuse reuse = security.sessionReuse();
    if (tlsResumptions >= reuse.maxUses()
        || System.nanoTime() - tlsLineStarted > reuse.maxAge().toNanos()) {
      log.debug(
          "PEP {}: TLS session resumed {} times over {} ms; the next handshake is a full one",
          pepId,
          tlsResumptions,
          (System.nanoTime() - tlsLineStarted) / 1_000_000);
      tlsLine = (tlsLine + 1) % 32768;
      tlsResumptions = 0;
      tlsLineStarted = System.nanoTime();
    }
  }

  /** What the security sub-codes of RFC 4261 (and Portcullis's Integrity one) ask of a PEP. */
  static String subCodeMeaning(int code, int sub) {
    if (code == ErrorCode.AUTHENTICATION_REQUIRED.code()
        && sub == ErrorCode.SUB_CODE_TLS_REQUIRED) {
      return ", sub-code 0x1002: the PDP requires TLS (RFC 4261); configure <tls>";
    }
    if (code == ErrorCode.AUTHENTICATION_REQUIRED.code()
        && sub == ErrorCode.SUB_CODE_INTEGRITY_REQUIRED) {
      return ", sub-code 0x1001: the PDP requires the Integrity object; configure <integrity>";
    }
    if (code == ErrorCode.UNKNOWN_OBJECT.code() && sub == ErrorCode.SUB_CODE_TLS_REQUIRED) {
      return ", sub-code 0x1002: the PDP does not speak TLS";
    }
    return sub == 0 ? "" : ", sub-code 0x" + Integer.toHexString(sub);
  }

  /** Sends {@code cc}, then ends the attempt to open (or the connection) with {@code e}. */
  private void closeAndFail(ChannelHandlerContext ctx, ClientClose cc, PepException e) {
    ctx.writeAndFlush(cc);
    fail(ctx, e);
  }

  /** Ends the attempt to open (or the connection) with {@code e}. */
  private void fail(ChannelHandlerContext ctx, PepException e) {
    log.warn("PEP {}: {}", pepId, e.getMessage());
    accepted = false;
    if (opening != null) {
      opening.completeExceptionally(e);
      opening = null;
      closing = true;
    }
    ctx.channel().close();
  }

  private void scheduleReconnect(PepException why) {
    if (closing) {
      return;
    }
    long delay = backoffMillis;
    backoffMillis = Math.min(reconnectMax.toMillis(), backoffMillis * 2);
    log.info("PEP {}: {}; reconnecting to {} in {} ms", pepId, why.getMessage(), home, delay);
    target = home;
    redirects = 0;
    loop.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
  }

  private void failAll(PepException e) {
    for (Pending p : pending.values()) {
      p.timeout().cancel(false);
      p.future().completeExceptionally(e);
    }
    pending.clear();
  }

  private void timedOut(String handle) {
    Pending p = pending.remove(handle);
    if (p == null) {
      return;
    }
    installed.remove(handle);
    p.future()
        .completeExceptionally(
            new TimeoutException("no decision for " + handle + " within " + requestTimeout));
    if (accepted) {
      // RFC 2748 section 4.3: a timed-out handle is deleted; the PEP may retry with a new one.
      channel.writeAndFlush(
          new CopsMessage.DeleteRequest(
              clientType, false, handle(handle), new Reason(ReasonCode.TIMEOUT), null));
    }
  }

  private void scheduleKeepAlive(Channel ch) {
    if (keepAliveSeconds == 0) {
      return;
    }
    long ka = TimeUnit.SECONDS.toMillis(keepAliveSeconds);
    long delay = ThreadLocalRandom.current().nextLong(ka / 4, ka * 3 / 4 + 1);
    loop.schedule(
        () -> {
          if (ch != channel || !ch.isActive()) {
            return;
          }
          if (System.nanoTime() - lastRead > TimeUnit.MILLISECONDS.toNanos(ka)) {
            log.warn(
                "PEP {}: PDP {} silent for {} s; dropping the connection",
                pepId,
                target,
                keepAliveSeconds);
            ch.writeAndFlush(ClientClose.of(0, ErrorCode.COMMUNICATION_FAILURE, 0));
            ch.close();
            return;
          }
          ch.writeAndFlush(new CopsMessage.KeepAlive(false, null));
          scheduleKeepAlive(ch);
        },
        delay,
        TimeUnit.MILLISECONDS);
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    private final IntegritySession integrity;

    Handler(IntegritySession integrity) {
      this.integrity = integrity;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof SslHandshakeCompletionEvent) {
        handshakeDone(ctx, (SslHandshakeCompletionEvent) evt);
      } else {
        ctx.fireUserEventTriggered(evt);
      }
    }

    /** RFC 4261: the PDP's Client-Accept with Integrity-TLS says "start the handshake now". */
    private void startTls(ChannelHandlerContext ctx) {
      if (security == null || security.tls() == null) {
        closeAndFail(
            ctx,
            ClientClose.of(0, ErrorCode.UNKNOWN_OBJECT, ErrorCode.SUB_CODE_TLS_REQUIRED),
            new PepException(
                ErrorCode.AUTHENTICATION_REQUIRED.code(),
                ErrorCode.SUB_CODE_TLS_REQUIRED,
                "PDP " + target + " requires TLS (RFC 4261) and this PEP has no TLS configured"));
        return;
      }
      if (tlsUp || ctx.pipeline().get(SslHandler.class) != null) {
        closeAndFail(
            ctx,
            ClientClose.of(0, ErrorCode.BAD_MESSAGE_FORMAT, 0),
            new PepException(
                ErrorCode.BAD_MESSAGE_FORMAT.code(), 0, "PDP asked for TLS a second time"));
        return;
      }
      ctx.pipeline()
          .addFirst(
              "tls",
              tls.newClientHandler(
                  ctx.alloc(), target.getHostString(), target.getPort() + (tlsLine << 16)));
    }

    private void handshakeDone(ChannelHandlerContext ctx, SslHandshakeCompletionEvent e) {
      if (!e.isSuccess()) {
        fail(
            ctx,
            new PepException(
                ErrorCode.AUTHENTICATION_FAILURE.code(),
                0,
                "TLS handshake with PDP "
                    + target
                    + " failed: "
                    + CopsTls.failureReason(e.cause())));
        return;
      }
      CopsTls.Handshake h = tls.describe(ctx.pipeline().get(SslHandler.class));
      List<String> names = h.peer() == null ? List.of() : CopsTls.subjectAltNames(h.peer());
      if (!security.authorisedPdps().isEmpty()
          && Collections.disjoint(names, security.authorisedPdps())) {
        closeAndFail(
            ctx,
            ClientClose.of(0, ErrorCode.AUTHENTICATION_FAILURE, 0),
            new PepException(
                ErrorCode.AUTHENTICATION_FAILURE.code(),
                0,
                "PDP "
                    + target
                    + " is not an authorised PDP: its certificate names "
                    + names
                    + ", authorised are "
                    + security.authorisedPdps()));
        return;
      }
      if (Boolean.TRUE.equals(h.resumed())) {
        tlsResumptions++;
        resumedHandshakes.incrementAndGet();
      } else {
        tlsLineStarted = System.nanoTime();
        tlsResumptions = 0;
        fullHandshakes.incrementAndGet();
      }
      tlsUp = true;
      log.info(
          "PEP {}: TLS with {} established, {} {}, {} handshake",
          pepId,
          target,
          h.protocol(),
          h.cipherSuite(),
          h.kind());
      listener.tlsEstablished(h);
      sendOpen(ctx.channel());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      lastRead = System.nanoTime();
      if (msg instanceof CopsDecodeFailure) {
        var e = ((CopsDecodeFailure) msg).cause();
        log.warn("PEP {}: malformed message from PDP {}: {}", pepId, target, e.getMessage());
        ctx.writeAndFlush(
            new ClientClose(Math.max(0, e.clientType()), false, e.errorObject(), null, null));
        ctx.close();
        return;
      }
      CopsMessage m = (CopsMessage) msg;
      switch (m.opCode()) {
        case CAT:
          CopsMessage.ClientAccept a = (CopsMessage.ClientAccept) m;
          if (a.integrity() instanceof IntegrityTls) {
            startTls(ctx);
          } else if (security != null && security.tls() != null && !tlsUp) {
            // RFC 4261 section 5.1: a PEP requiring TLS closes if the PDP does not agree.
            closeAndFail(
                ctx,
                ClientClose.of(
                    0, ErrorCode.AUTHENTICATION_REQUIRED, ErrorCode.SUB_CODE_TLS_REQUIRED),
                new PepException(
                    ErrorCode.AUTHENTICATION_REQUIRED.code(),
                    ErrorCode.SUB_CODE_TLS_REQUIRED,
                    "PDP " + target + " accepted without agreeing to TLS; this PEP requires TLS"));
          } else if (integrity != null && !integrity.peerSigns()) {
            closeAndFail(
                ctx,
                ClientClose.of(
                    clientType,
                    ErrorCode.AUTHENTICATION_REQUIRED,
                    ErrorCode.SUB_CODE_INTEGRITY_REQUIRED),
                new PepException(
                    ErrorCode.AUTHENTICATION_REQUIRED.code(),
                    ErrorCode.SUB_CODE_INTEGRITY_REQUIRED,
                    "PDP " + target + " answered without the Integrity object this PEP requires"));
          } else {
            accepted(ctx, a);
          }
          break;
        case DEC:
          decision((Decision) m);
          break;
        case CC:
          clientClose(ctx, (ClientClose) m);
          break;
        case SSQ:
          synchronize(ctx, (CopsMessage.SyncStateRequest) m);
          break;
        case KA:
          break; // lastRead is all a keep-alive is for
        default:
          log.warn("PEP {}: unexpected {} from PDP; closing", pepId, m.opCode());
          ctx.writeAndFlush(ClientClose.of(m.clientType(), ErrorCode.BAD_MESSAGE_FORMAT, 0));
          ctx.close();
          break;
      }
    }

    private void accepted(ChannelHandlerContext ctx, CopsMessage.ClientAccept a) {
      accepted = true;
      redirects = 0;
      backoffMillis = reconnectInitial.toMillis();
      lastPdp = (InetSocketAddress) ctx.channel().remoteAddress();
      keepAliveSeconds = a.kaTimer().seconds();
      scheduleKeepAlive(ctx.channel());
      log.info(
          "PEP {}: client type 0x{} accepted by {} (keep-alive {} s)",
          pepId,
          Integer.toHexString(clientType),
          lastPdp,
          keepAliveSeconds);
      listener.opened(lastPdp, keepAliveSeconds);
      // After a reconnect the PDP holds none of our state: send it again.
      installed.forEach(
          (h, i) -> ctx.write(requestMessage(h, i.context(), i.request().toClientSI(), false)));
      ctx.flush();
      if (opening != null) {
        opening.complete(null);
        opening = null;
      }
    }

    private void decision(Decision d) {
      String h = handle(d.handle());
      Pending p = d.solicited() ? pending.remove(h) : null;
      if (p != null) {
        p.timeout().cancel(false);
      }
      if (d.error() != null) {
        installed.remove(h);
        PepException e =
            new PepException(
                d.error().code(),
                d.error().subCode(),
                "PDP refused request "
                    + h
                    + ": error "
                    + d.error().code()
                    + (d.error().errorCode() == null
                        ? ""
                        : " (" + d.error().errorCode().description() + ")"));
        if (p != null) {
          p.future().completeExceptionally(e);
        }
        return;
      }
      var set = d.decisions().get(0);
      boolean granted = set.flags().command() == DecisionCommand.INSTALL.code();
      AccessDecision data = new AccessDecision(null, null, null, null, null, null);
      // Every client type but enrolment's carries the access format (0xC0A5 rules, 0xC0A6 MLS).
      if (set.clientSpecific() != null && clientType != Enrolment.CLIENT_TYPE) {
        try {
          data = AccessDecision.decode(set.clientSpecific().data());
        } catch (CopsCodecException e) {
          log.warn("PEP {}: decision data for {} unreadable: {}", pepId, h, e.getMessage());
        }
      }
      PepDecision pd =
          new PepDecision(
              granted,
              data,
              d.solicited(),
              set.clientSpecific() == null ? null : set.clientSpecific().data());
      Installed i = installed.get(h);
      if (i != null) {
        installed.put(h, new Installed(i.context(), i.request(), pd));
      }
      if (p != null) {
        p.future().complete(pd);
      } else if (!d.solicited()) {
        listener.decisionChanged(h, pd);
      }
    }

    private void clientClose(ChannelHandlerContext ctx, ClientClose c) {
      ErrorObject err = c.error();
      accepted = false;
      if (err.code() == ErrorCode.REDIRECT_TO_PREFERRED_SERVER.code()
          && c.redirect() != null
          && redirects < MAX_REDIRECTS) {
        redirects++;
        target = new InetSocketAddress(c.redirect().address(), c.redirect().port());
        log.info("PEP {}: redirected to {}", pepId, target);
        channel = null; // so closing the old connection does not count as losing the PDP
        ctx.channel().close();
        loop.execute(PepClient.this::connect);
        return;
      }
      PepException e =
          new PepException(
              err.code(),
              err.subCode(),
              "PDP "
                  + target
                  + " closed client type 0x"
                  + Integer.toHexString(c.clientType())
                  + ": error "
                  + err.code()
                  + (err.errorCode() == null ? "" : " (" + err.errorCode().description() + ")")
                  + subCodeMeaning(err.code(), err.subCode()));
      if (opening != null) {
        opening.completeExceptionally(e);
        opening = null;
        closing = true;
      }
      ctx.channel().close();
    }

    private void synchronize(ChannelHandlerContext ctx, CopsMessage.SyncStateRequest s) {
      installed.forEach(
          (h, i) -> {
            if (s.handle() == null || handle(s.handle()).equals(h)) {
              ctx.write(requestMessage(h, i.context(), i.request().toClientSI(), true));
            }
          });
      ctx.writeAndFlush(new CopsMessage.SyncStateComplete(clientType, true, s.handle(), null));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (ctx.channel() != channel) {
        return; // an old connection closing after a redirect
      }
      boolean was = accepted;
      accepted = false;
      PepException e =
          new PepException(
              ErrorCode.COMMUNICATION_FAILURE.code(), 0, "connection to " + target + " lost");
      failAll(e);
      if (opening != null && !was) {
        // Closed while opening: say why now (a TLS 1.3 PDP refuses a client certificate after
        // the PEP's side of the handshake is done), rather than let the caller time out.
        String why = lastError == null ? null : CopsTls.failureReason(lastError);
        if (why != null && tlsUp && !why.startsWith("certificate refused")) {
          // TLS 1.3: the PDP checks the PEP's certificate after the PEP's side of the handshake
          // is done, so a refusal arrives as an alert before any COPS message; some engines send
          // it as internal_error.
          why =
              "certificate refused by the PDP, most likely: it ended TLS right after the"
                  + " handshake, before any COPS message ("
                  + why
                  + "); is this PEP's certificate issued by a CA the PDP trusts?";
        }
        opening.completeExceptionally(
            new PepException(
                lastError == null
                    ? ErrorCode.COMMUNICATION_FAILURE.code()
                    : ErrorCode.AUTHENTICATION_FAILURE.code(),
                0,
                "PDP "
                    + target
                    + " closed the connection before accepting this PEP"
                    + (why == null ? "" : ": " + why)));
        opening = null;
        closing = true;
        return;
      }
      if (was) {
        listener.disconnected(e);
      }
      if (opening == null) {
        scheduleReconnect(e);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.debug("PEP {}: connection error: {}", pepId, cause.toString());
      lastError = cause;
      ctx.close();
    }
  }

  /** Configures a {@link PepClient}. */
  public static final class Builder {
    private InetSocketAddress pdp = new InetSocketAddress("127.0.0.1", 3288);
    private String pepId;
    private int clientType = AccessRequest.CLIENT_TYPE;
    private PepListener listener = new PepListener() {};
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Duration reconnectInitial = Duration.ofMillis(200);
    private Duration reconnectMax = Duration.ofSeconds(30);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private PepSecurity security;

    private Builder() {}

    /** TLS and/or Integrity for the connection (default: plain COPS). */
    public Builder security(PepSecurity security) {
      this.security = security;
      return this;
    }

    /** The PDP to connect to (default 127.0.0.1:3288). */
    public Builder pdp(InetSocketAddress pdp) {
      this.pdp = Objects.requireNonNull(pdp, "pdp");
      return this;
    }

    /** This PEP's identity, sent in the PEPID object (ASCII). Required. */
    public Builder pepId(String pepId) {
      new CopsObject.PepId(pepId); // validates
      this.pepId = pepId;
      return this;
    }

    public Builder clientType(int clientType) {
      if (clientType < 1 || clientType > 0xFFFF) {
        throw new IllegalArgumentException("clientType: " + clientType + " (expected: 1 to 65535)");
      }
      this.clientType = clientType;
      return this;
    }

    public Builder listener(PepListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** How long a request may wait for its decision before it is deleted (default 10 s). */
    public Builder requestTimeout(Duration d) {
      this.requestTimeout = positive(d, "requestTimeout");
      return this;
    }

    /** First and longest wait between reconnect attempts (default 200 ms, doubling to 30 s). */
    public Builder reconnect(Duration initial, Duration max) {
      this.reconnectInitial = positive(initial, "initial");
      this.reconnectMax = positive(max, "max");
      return this;
    }

    public Builder connectTimeout(Duration d) {
      this.connectTimeout = positive(d, "connectTimeout");
      return this;
    }

    private static Duration positive(Duration d, String what) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + ": " + d + " (expected: a positive duration)");
      }
      return d;
    }

    public PepClient build() {
      if (pepId == null) {
        throw new IllegalStateException("pepId is required");
      }
      return new PepClient(this);
    }
  }
}
