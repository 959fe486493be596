package dev.portcullis.pep.proxy;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.pep.Grants;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepException;
import dev.portcullis.pep.PepListener;
import dev.portcullis.support.Cli;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Timebase;
import dev.portcullis.support.Transport;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enforcing PEP (MYSEA's trusted proxy): in front of each upstream service it accepts client
 * connections, asks the PDP once per connection (an ACCESS request of the access client type:
 * subject, addresses and ports, TCP, service, access mode) and forwards bytes only after an
 * Install. A Remove then or later (an unsolicited DEC after a policy change or the end of an MLS
 * session) closes the connection; a connection's end deletes its request state (DRQ). Without a PDP
 * it fails closed: new connections are refused, and with {@code on-pdp-loss="close-all"} open ones
 * are closed too. Reference: docs/pep-proxy.md.
 */
public final class PepProxy implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(PepProxy.class);
  private static final Transport TRANSPORT = Transport.best();

  private final PepClient pep;

  /**
   * One group accepts, relays and runs the PEP: a decision's request, its answer and the upstream
   * connect stay on the event loop they started on where they can (with one thread, all of them). A
   * separate acceptor thread and the PEP's own thread cost two thread hand-overs per connection on
   * the way to the first byte: in ProxyBench, CRR through the proxy went from 2.9x HAProxy's to
   * 2.0-2.3x with one group.
   */
  private final EventLoopGroup loops;

  /**
   * The loop that owns the proxy's books ({@link Owners}): the PEP's, so that decisions, Removes
   * and the books they change are ordered by one thread.
   */
  private final EventLoop books;

  private final List<Channel> servers = new ArrayList<>();

  /** The open connections: written on the books' loop only, read anywhere (counts, drain, stop). */
  private final Map<String, ProxiedConnection> conns = new ConcurrentHashMap<>();

  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean draining; // SIGTERM: no new connections, the open ones go on a while
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private final CompletableFuture<Void> ready = new CompletableFuture<>(); // first PDP accept
  private final ProxyListeners listeners;
  private final ProxyCounters counters = new ProxyCounters();
  private final UpstreamConnector upstreams;
  private final Context context = new Context(Context.R_INCOMING, 0);
  private final ProxyAudit audit;
  private final ProxySessions sessions; // made once the PEP exists, before it opens

  /** Revocations and the cached grants they end; made once the PEP exists, before it opens. */
  private final ProxyRevocations revocations;

  /** Who gets in, and each connection's end; made with the revocations. */
  private final ProxyAdmission admission;

  /**
   * Binds every listener and opens the PEP's connection; the proxy serves once this returns (a PDP
   * that is not there yet only means new connections are refused until it is).
   *
   * @param pepBuilder the PEP, configured but for its listener and event loop (set here)
   * @param audit where each connection's decision, opening, revocation and end are recorded ({@link
   *     AuditLog#NONE}: nowhere); the caller opens and closes it
   */
  public PepProxy(ProxyConfig config, PepClient.Builder pepBuilder, int threads, AuditLog audit)
      throws InterruptedException {
    this(config, pepBuilder, threads, audit, Timebase.SYSTEM);
  }

  /**
   * As above, with the time base the PEP's decision cache and the proxy's grants expire by, and
   * that runs the grants' timers (a test moves it instead of sleeping).
   */
  public PepProxy(
      ProxyConfig config, PepClient.Builder pepBuilder, int threads, AuditLog audit, Timebase time)
      throws InterruptedException {
    this.loops = TRANSPORT.group(threads);
    this.books = loops.next();
    this.listeners =
        new ProxyListeners(loops, TRANSPORT, counters, this::decide, pepBuilder.wallClock());
    this.pep =
        pepBuilder
            .eventLoop(books)
            .ticker(time::nanoTime)
            .listener(
                new PepListener() {
                  @Override
                  public void decisionChanged(String handle, PepDecision d) {
                    if (d.granted()) {
                      revocations.regranted(handle, d); // its grant follows the new decision
                      return;
                    }
                    String loggedOut = sessions.removed(handle, d);
                    if (loggedOut != null) {
                      revocations.revokeSubject(loggedOut, "logged out by the PDP");
                    } else {
                      revocations.revoke(handle, d);
                    }
                  }

                  @Override
                  public void opened(InetSocketAddress pdp, int keepAliveSeconds) {
                    log.info(
                        ready.isDone()
                            ? "proxy: PDP {} accepted the PEP again: connections are decided again"
                            : "proxy: PDP {} accepted the PEP: connections are decided from now on",
                        HostPort.of(pdp));
                    ready.complete(null);
                    revocations.askForCached();
                  }

                  @Override
                  public void disconnected(PepException why) {
                    pdpLost(why);
                  }
                })
            .build();
    this.audit = new ProxyAudit(audit, pep.pepId());
    this.sessions = new ProxySessions(pep, this.audit);
    this.revocations =
        new ProxyRevocations(
            conns,
            new Grants(time::nanoTime, Grants.DEFAULT_MAXIMUM_SIZE),
            new GrantAnchors(
                h -> pep.delete(h, ReasonCode.TEAR),
                time,
                books,
                (int) Grants.DEFAULT_MAXIMUM_SIZE),
            counters,
            this.audit,
            pep,
            context,
            books);
    this.upstreams =
        new UpstreamConnector(TRANSPORT, listeners, counters, this.audit, pepBuilder.wallClock());
    this.admission =
        new ProxyAdmission(
            conns, pep, context, counters, this.audit, sessions, revocations, upstreams, books);
    audit.onFailure(
        e -> {
          // A proxy that cannot audit must not admit: stop, off the writer thread.
          log.error("audit log cannot be written ({}): the proxy stops", e.getMessage());
          closeAsync();
        });
    try {
      for (ProxyConfig.Listener l : config.listeners()) {
        servers.add(listeners.bind(l));
      }
    } catch (RuntimeException | InterruptedException e) {
      close();
      throw e;
    }
    log.info(
        "proxy: waiting for the PDP at {}: connections are refused until it accepts",
        HostPort.of(pep.pdp()));
    openPep();
  }

  /**
   * Asks the PDP to accept the PEP until one does: a proxy started before its PDP (or whose PDP
   * refuses it for a while) keeps trying, with back-off, rather than refuse every connection for
   * good. Once accepted, the PEP client itself reconnects after a loss.
   */
  private void openPep() {
    pep.openUntilAccepted(
        (e, first) -> {
          if (closed.get()) {
            return;
          }
          if (first) {
            log.warn(
                "proxy: no PDP yet ({}): connections are refused until one accepts; trying"
                    + " again every few seconds",
                Cli.message(e));
          } else {
            log.debug("proxy: still no PDP ({}); trying again", Cli.message(e));
          }
        });
  }

  /** A connection accepted on {@code l}: decided by {@link ProxyAdmission}. */
  private void decide(ProxyConfig.Listener l, SocketChannel client, String subject) {
    admission.decide(l, client, subject);
  }

  private void pdpLost(PepException why) {
    log.warn("proxy: PDP lost ({}): new connections refused until one accepts", why.getMessage());
    for (ProxiedConnection c : conns.values()) {
      if (c.listener.closeOnPdpLoss()) {
        revocations.lost(c); // its end (closeFuture) then deletes or keeps its request state
      }
    }
  }

  /** The listeners' addresses (the real ports when 0 was configured), in configuration order. */
  public List<InetSocketAddress> addresses() {
    return servers.stream().map(c -> (InetSocketAddress) c.localAddress()).toList();
  }

  public ProxyCounters counters() {
    return counters;
  }

  /** Connections currently proxied (or waiting for their decision). */
  public int open() {
    return conns.size();
  }

  /**
   * Bytes the proxy holds now, written to a client or an upstream and not yet taken by its socket:
   * bounded by each channel's write-buffer high-water mark plus one read, however slow a reader.
   */
  public long buffered() {
    long n = 0;
    for (ProxiedConnection c : conns.values()) {
      n += pending(c.client) + pending(c.upstream);
    }
    return n;
  }

  private static long pending(Channel ch) {
    ChannelOutboundBuffer b = ch == null ? null : ch.unsafe().outboundBuffer();
    return b == null ? 0 : b.totalPendingWriteBytes();
  }

  /** Subjects whose MLS session the proxy carries now. */
  public int sessions() {
    return sessions.size();
  }

  public PepClient pep() {
    return pep;
  }

  /**
   * SIGTERM's first step: stops accepting (from now on {@link #draining} is true: the endpoint
   * reports not ready) and waits at most {@code period} for the open connections to end by
   * themselves; {@link #close} then cuts the rest.
   *
   * @return the connections still open when it stopped waiting
   */
  public int drain(Duration period) {
    draining = true;
    for (Channel s : servers) {
      s.close().syncUninterruptibly();
    }
    // woken by each connection's end rather than polling: it returns when the last one goes
    List<ProxiedConnection> open = List.copyOf(conns.values());
    CountDownLatch ended = new CountDownLatch(open.size());
    for (ProxiedConnection c : open) {
      c.client.closeFuture().addListener(f -> ended.countDown());
    }
    try {
      ended.await(period.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int left = conns.size();
    if (left > 0) {
      log.info("proxy draining: {} connections still open after {}; cutting them", left, period);
    }
    return left;
  }

  /** True from the start of {@link #drain}. */
  public boolean draining() {
    return draining;
  }

  /** Stops listening, closes every proxied connection and the PEP; again is a no-op. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (Channel s : servers) {
      s.close().syncUninterruptibly();
    }
    for (ProxiedConnection c : conns.values()) {
      c.close();
    }
    pep.close();
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    listeners.flush();
    log.info("proxy stopped: {}", counters);
    stopped.complete(null);
  }

  /**
   * Completes the first time a PDP accepts the proxy's PEP: from then on a connection is decided.
   * Before that (and whenever {@link #isReady()} is false) connections are refused, failing closed.
   */
  @Override
  public CompletableFuture<Void> ready() {
    return ready;
  }

  /** Whether connections are decided now: a PDP has the PEP, and the proxy is not draining. */
  @Override
  public boolean isReady() {
    return !closed.get() && !draining && pep.isOpen();
  }

  /** Completes when the proxy has stopped (closed, or stopped itself: an audit it cannot write). */
  @Override
  public CompletableFuture<Void> stopped() {
    return stopped;
  }
}
