package dev.portcullis.pep;

import static dev.portcullis.pep.PepState.handle;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.Reason;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.ReportTypeObject;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.support.Backoff;
import dev.portcullis.support.Transport;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
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
 * <p>Thread-safe: every method hands its work to the connection's event loop. Inside, the work is
 * split by job: {@link PepState} (requests and decisions across connections), {@link PepConnector}
 * (the pipeline, connects and reconnects), {@link ReconnectPolicy} (home, redirects, back-off),
 * {@link TlsSessionReuse} (the TLS context and its session-reuse policy), {@link PepKeepAlive} and
 * {@link PepConnectionHandler} (the protocol on one connection).
 */
public final class PepClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PepClient.class);

  private final EventLoopGroup group; // null: the loop is the embedder's

  private final EventLoop loop;
  private final PepState state;
  private final TlsSessionReuse tls;
  private final PepConnector connector;
  private volatile boolean closed; // by the caller: openUntilAccepted stops trying

  private PepClient(Builder b) {
    // epoll where Linux's native transport loads (a REQ/DEC round trip on loopback: 76-84 us
    // against NIO's 92-95 us, the PEP's loop 35-38 us of CPU per round trip against 42-46)
    this.group = b.loop == null ? Transport.best().group(1) : null;
    this.loop = b.loop == null ? group.next() : b.loop;
    this.state =
        new PepState(
            b.pepId,
            b.clientType,
            b.listener,
            b.security,
            loop,
            b.requestTimeout,
            new ReconnectPolicy(b.pdps, b.reconnectInitial, b.reconnectMax));
    this.tls = state.tls() ? new TlsSessionReuse(b.security, b.pepId, b.ticker::read) : null;
    this.connector = new PepConnector(state, tls, b.connectTimeout, b.clock);
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
          if (state.accepted) {
            f.complete(null);
            return;
          }
          state.opening = f;
          state.closing = false;
          connector.connect();
        });
    return f;
  }

  /**
   * Opens as {@link #open} does, and again with back-off (200 ms, doubling to 5 s) until a PDP
   * accepts: a PEP started before its PDP, or refused by it for a while, keeps asking rather than
   * give up for good. {@code failed} hears each failure, and whether it is the first (to say so
   * once). The future completes when a PDP accepts; once the client is closed it stops trying and
   * never completes. After that the client reconnects by itself after a loss.
   */
  public CompletableFuture<Void> openUntilAccepted(BiConsumer<Throwable, Boolean> failed) {
    CompletableFuture<Void> accepted = new CompletableFuture<>();
    openUntilAccepted(
        accepted, new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5)), failed, true);
    return accepted;
  }

  private void openUntilAccepted(
      CompletableFuture<Void> accepted,
      Backoff backoff,
      BiConsumer<Throwable, Boolean> failed,
      boolean first) {
    open()
        .whenComplete(
            (v, e) -> {
              if (e == null) {
                accepted.complete(null);
                return;
              }
              failed.accept(e, first);
              try {
                loop.schedule(
                    () -> {
                      if (!closed) { // closed meanwhile: no more tries
                        openUntilAccepted(accepted, backoff, failed, false);
                      }
                    },
                    backoff.nextDelayMillis(),
                    TimeUnit.MILLISECONDS);
              } catch (java.util.concurrent.RejectedExecutionException stopping) {
                // the loop is shutting down with the client
              }
            });
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
          if (!state.admit(handle, f)) {
            return;
          }
          PepState.Installed before = state.installed.get(handle);
          state.installed.put(
              handle,
              new PepState.Installed(context, access, before == null ? null : before.decision()));
          state.channel.writeAndFlush(
              state.requestMessage(handle, context, access.toClientSI(), false));
        });
    return f;
  }

  /**
   * Sends one request with {@code si} as its ClientSI, for client types other than the access one
   * (enrolment); the request state is not kept for re-sending after a reconnect. The decision's
   * {@link PepDecision#clientData()} holds what the PDP answered.
   */
  public CompletableFuture<PepDecision> exchange(String handle, Context context, ClientSI si) {
    CompletableFuture<PepDecision> f = new CompletableFuture<>();
    send(handle, context, si, f);
    return f;
  }

  private void send(String handle, Context context, ClientSI si, CompletableFuture<PepDecision> f) {
    Objects.requireNonNull(handle, "handle");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(si, "si");
    loop.execute(
        () -> {
          if (state.admit(handle, f)) {
            state.channel.writeAndFlush(state.requestMessage(handle, context, si, false));
          }
        });
  }

  /**
   * As {@link #exchange(String, Context, ClientSI)}, the answer (or the failure) handed to {@code
   * answer} by a task submitted to {@code executor} from the event loop the moment the decision
   * arrives: in order with whatever else the loop hands to that executor, such as a listener's
   * {@code decisionChanged} that hands over to it. So a decision the PDP pushes on the handle after
   * its answer is never handled before the answer, however late the calling thread runs (with the
   * future form, a continuation registered after the answer came runs on the registering thread,
   * after pushes the loop handed over meanwhile). Nothing is handed over once {@code executor}
   * refuses work (it stopped).
   */
  public void exchange(
      String handle,
      Context context,
      ClientSI si,
      java.util.concurrent.Executor executor,
      BiConsumer<PepDecision, Throwable> answer) {
    Objects.requireNonNull(executor, "executor");
    Objects.requireNonNull(answer, "answer");
    CompletableFuture<PepDecision> f = new CompletableFuture<>();
    // registered before the request is even handed to the loop: whoever completes f (the loop, on
    // the answer) submits the task there and then
    f.whenComplete(
        (d, e) -> {
          try {
            executor.execute(() -> answer.accept(d, e));
          } catch (java.util.concurrent.RejectedExecutionException stopped) {
            // the executor's owner stopped: nobody to answer
          }
        });
    send(handle, context, si, f);
  }

  /** Reports the outcome of applying a decision (or an accounting update). */
  public void report(String handle, ReportType type) {
    report(handle, type, null);
  }

  /**
   * Reports the outcome of applying a decision (or an accounting update) with {@code si} as the
   * report's data (null for none); dropped when the client type is not open.
   */
  public void report(String handle, ReportType type, ClientSI si) {
    Objects.requireNonNull(handle, "handle");
    Objects.requireNonNull(type, "type");
    loop.execute(
        () -> {
          if (state.accepted) {
            state.channel.writeAndFlush(
                new Report(
                    state.clientType,
                    type != ReportType.ACCOUNTING,
                    handle(handle),
                    new ReportTypeObject(type),
                    si,
                    null));
          }
        });
  }

  /** Deletes a request state (DRQ) and forgets its decision. */
  public void delete(String handle, ReasonCode reason) {
    loop.execute(
        () -> {
          state.installed.remove(handle);
          PepState.Pending p = state.pending.remove(handle);
          if (p != null) {
            p.timeout().cancel(false);
            p.future()
                .completeExceptionally(new PepException(0, 0, "request " + handle + " deleted"));
          }
          if (state.accepted) {
            state.channel.writeAndFlush(
                new DeleteRequest(
                    state.clientType, false, handle(handle), new Reason(reason), null));
          }
        });
  }

  /** The installed decisions by handle, as the PDP last stated them. */
  public CompletableFuture<Map<String, PepDecision>> installed() {
    CompletableFuture<Map<String, PepDecision>> f = new CompletableFuture<>();
    loop.execute(
        () -> {
          Map<String, PepDecision> m = new LinkedHashMap<>();
          state.installed.forEach(
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
    return state.accepted;
  }

  /**
   * The Accounting timer the PDP's last Client-Accept gave (RFC 2748 section 2.2.13): how often, at
   * most, the PDP wants accounting reports; zero when it asked for none.
   */
  public java.time.Duration accountingInterval() {
    return java.time.Duration.ofSeconds(state.accountingSeconds);
  }

  /** The PEP id this client opens with. */
  public String pepId() {
    return state.pepId;
  }

  /** The PDP this client is connected (or connecting) to; changes with redirects. */
  public InetSocketAddress pdp() {
    return state.route.target();
  }

  /** Sends a Client-Close and closes; does not reconnect. Waits at most a few seconds. */
  @Override
  public void close() {
    closed = true;
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(
        () -> {
          state.closing = true;
          state.failAll(new PepException(0, 0, "client closed"));
          Channel ch = state.channel;
          if (ch != null && ch.isActive()) {
            closeWithClientClose(ch, state.accepted)
                .addListener(x -> ch.close().addListener(y -> done.complete(null)));
          } else {
            done.complete(null);
          }
          state.accepted = false;
        });
    try {
      done.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.debug("close did not finish cleanly: {}", e.toString());
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    if (tls != null) {
      tls.close();
    }
  }

  /** A Client-Close on {@code ch} when the client type is open; done at once otherwise. */
  private ChannelFuture closeWithClientClose(Channel ch, boolean open) {
    return open
        // "Shutting down" (RFC 2748 section 2.2.8, error 11): a PEP that leaves says why, and the
        // PDP logs an ordinary goodbye, not "Unspecified" on every normal exit
        ? ch.writeAndFlush(ClientClose.of(state.clientType, ErrorCode.SHUTTING_DOWN, 0))
        : ch.newSucceededFuture();
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
          Channel old = state.channel;
          state.channel = null; // its closing is not a lost PDP
          boolean was = state.accepted;
          state.accepted = false;
          state.closing = false;
          state.opening = f;
          state.failAll(new PepException(0, 0, "reconnecting"));
          if (old != null && old.isActive()) {
            closeWithClientClose(old, was)
                .addListener(x -> old.close().addListener(y -> connector.connect()));
          } else {
            connector.connect();
          }
        });
    return f;
  }

  /** TLS handshakes so far that verified the PDP's certificate (full handshakes). */
  public long fullHandshakes() {
    return tls == null ? 0 : tls.fullHandshakes();
  }

  /** TLS handshakes so far that resumed an earlier session. */
  public long resumedHandshakes() {
    return tls == null ? 0 : tls.resumedHandshakes();
  }

  /** Configures a {@link PepClient}. */
  public static final class Builder {
    private List<InetSocketAddress> pdps = List.of(new InetSocketAddress("127.0.0.1", 3288));
    private String pepId;
    private int clientType = AccessRequest.CLIENT_TYPE;
    private PepListener listener = new PepListener() {};
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Duration reconnectInitial = Duration.ofMillis(200);
    private Duration reconnectMax = Duration.ofSeconds(30);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private PepSecurity security;
    private EventLoop loop;
    private java.time.Clock clock = java.time.Clock.systemUTC();
    private Ticker ticker = Ticker.systemTicker();

    private Builder() {}

    /**
     * Runs this PEP on {@code loop} (an epoll or NIO event loop of the embedder's, which it keeps
     * and shuts down), so that many PEPs in one process share a few threads, or a PEP shares the
     * thread of the connections it decides for (the proxy); by default each PEP has its own thread.
     */
    public Builder eventLoop(EventLoop loop) {
      EventLoopGroup group = Objects.requireNonNull(loop, "loop").parent();
      if (Transport.of(group) == null) {
        throw new IllegalArgumentException("eventLoop: an epoll or NIO event loop");
      }
      this.loop = loop;
      return this;
    }

    /** TLS and/or Integrity for the connection (default: plain COPS). */
    public Builder security(PepSecurity security) {
      this.security = security;
      return this;
    }

    /** The PDP to connect to (default 127.0.0.1:3288). */
    public Builder pdp(InetSocketAddress pdp) {
      this.pdps = List.of(Objects.requireNonNull(pdp, "pdp"));
      return this;
    }

    /**
     * The PDPs of a fleet, in order of preference: the PEP connects to the first, and when its PDP
     * is lost goes on to the next at once (sending Last PDP Address and its request states again),
     * backing off only after the whole list has failed in a row (docs/fleet.md).
     */
    public Builder pdps(List<InetSocketAddress> pdps) {
      if (pdps == null || pdps.isEmpty()) {
        throw new IllegalArgumentException("pdps: " + pdps + " (expected: one address or more)");
      }
      this.pdps = List.copyOf(pdps); // refuses a null address
      return this;
    }

    /** This PEP's identity, sent in the PEPID object (ASCII). Required. */
    public Builder pepId(String pepId) {
      new PepId(pepId); // validates
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

    /** The wall clock the client is built with ({@link #clock}), for what runs beside it. */
    public java.time.Clock wallClock() {
      return clock;
    }

    /**
     * The wall clock Integrity keys' validity is judged by (default: the system's); a test moves
     * one by hand rather than sleep through a key roll.
     */
    public Builder clock(java.time.Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The monotonic time source TLS sessions age by for {@code <session-reuse max-age>} (default:
     * the system's); the proxy passes the one its grants expire by.
     */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
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
