package dev.portcullis.tunnel.vici;

import dev.portcullis.support.Timebase;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of charon's control socket (strongSwan's VICI protocol): asynchronous commands, event
 * subscriptions and streamed commands ({@code list-sas}) over one unix socket connection, on Netty
 * (the epoll transport's domain-socket channel).
 *
 * <p>charon answers the requests of one connection in the order they came, one answer each, and may
 * send events between them; so every request waits in one queue for its answer, and events go to
 * their subscribers by name. A command times out after the client's timeout (its answer, when it
 * still comes, is read and dropped); a command charon refuses fails with a {@link
 * ViciCommandException} carrying charon's {@code errmsg}; bytes that are not VICI, a packet over
 * {@value ViciCodec#MAX_PACKET} bytes or the daemon going away end the connection and fail
 * everything outstanding, and the close listeners hear why. At most {@value #MAX_OUTSTANDING}
 * requests wait at once.
 *
 * <p>One owner (docs/architecture.md): the queue, the subscribers, the control log and the end are
 * the connection's event loop's; a method called from another thread hands its work to that loop,
 * and every future completes there (a continuation that blocks would hold the loop: continue it on
 * an executor of your own). Timeouts run by the {@link Timebase} the client was given. Calls may
 * come from any thread.
 */
public final class ViciClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ViciClient.class);

  /** Requests waiting for their answers at once, at most. */
  public static final int MAX_OUTSTANDING = 1024;

  /** A request waiting for its answer. */
  private record Pending(String what, CompletableFuture<ViciPacket> answer) {}

  private final Path socket;
  private final Channel channel;
  private final EventLoop loop;
  private final EventLoopGroup ownGroup; // null: the caller's, which the caller stops
  private final Duration timeout;
  private final Timebase time;

  // ---- the loop's ----
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private final Map<String, List<Consumer<ViciMessage>>> subscribers = new HashMap<>();
  private final List<Consumer<Throwable>> closeListeners = new ArrayList<>();
  private final ControlLog controlLog = new ControlLog();
  private CompletableFuture<Void> controlLogRegistered;

  /** Why the connection ended; null while it is up. Written on the loop, read anywhere. */
  private volatile Throwable closed;

  private ViciClient(
      Path socket, Channel channel, EventLoopGroup ownGroup, Duration timeout, Timebase time) {
    this.socket = socket;
    this.channel = channel;
    this.loop = channel.eventLoop();
    this.ownGroup = ownGroup;
    this.timeout = timeout;
    this.time = time;
  }

  /**
   * Connects to charon's VICI socket, on an event loop of the client's own (stopped when it
   * closes), with the system's time.
   *
   * @param timeout how long each command may take
   * @throws IOException naming the socket when it cannot be reached (charon not running, no
   *     permission), or when this system has no epoll transport (charon runs on Linux only)
   */
  public static ViciClient connect(Path socket, Duration timeout) throws IOException {
    return connect(socket, timeout, null, Timebase.SYSTEM);
  }

  /**
   * As {@link #connect(Path, Duration)}, on {@code group} (an epoll group the caller owns and
   * stops; null: one of the client's own) and timing commands out by {@code time}.
   */
  public static ViciClient connect(
      Path socket, Duration timeout, EventLoopGroup group, Timebase time) throws IOException {
    Objects.requireNonNull(time, "time");
    if (!Epoll.isAvailable()) {
      throw new IOException(
          "charon's VICI socket "
              + socket
              + " needs Netty's epoll transport, not available here: "
              + Epoll.unavailabilityCause());
    }
    EventLoopGroup own = group == null ? Transport.EPOLL.group(1) : null;
    ViciClient[] made = new ViciClient[1];
    Bootstrap b =
        new Bootstrap()
            .group(group == null ? own : group)
            .channel(EpollDomainSocketChannel.class)
            .option(ChannelOption.AUTO_READ, false) // until the client exists: turned on below
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis())))
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    ch.pipeline()
                        .addLast("frames", new Frames())
                        .addLast("client", new Reader(() -> made[0]));
                  }
                });
    ChannelFuture f = b.connect(new DomainSocketAddress(socket.toFile()));
    f.awaitUninterruptibly();
    if (!f.isSuccess()) {
      if (own != null) {
        own.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      }
      throw new IOException(
          "charon's VICI socket "
              + socket
              + " cannot be reached (is charon running?): "
              + f.cause(),
          f.cause());
    }
    ViciClient c = new ViciClient(socket, f.channel(), own, timeout, time);
    made[0] = c;
    c.loop.execute(() -> c.channel.config().setAutoRead(true));
    return c;
  }

  /** Hears why the connection ended (the daemon went, bad bytes, or {@link #close}). */
  public void onClose(Consumer<Throwable> listener) {
    Objects.requireNonNull(listener, "listener");
    onLoop(
        () -> {
          closeListeners.add(listener);
          if (closed != null) {
            listener.accept(closed);
          }
        },
        () -> listener.accept(closed));
  }

  /** True while the connection is up. */
  public boolean isOpen() {
    return closed == null;
  }

  // ---- requests ---------------------------------------------------------------------------------

  /**
   * Sends command {@code name}; completes with charon's answer, or fails with a {@link
   * ViciCommandException} (charon refused it), a {@link TimeoutException} or an {@link IOException}
   * (the connection ended).
   */
  public CompletableFuture<ViciMessage> command(String name, ViciMessage arguments) {
    return send(ViciPacket.command(name, arguments), name)
        .thenApply(
            p -> {
              if (p.type() == ViciPacket.Type.CMD_UNKNOWN) {
                throw new CompletionException(new ViciCommandException(name, "unknown command"));
              }
              if (p.type() != ViciPacket.Type.CMD_RESPONSE) {
                throw new CompletionException(
                    new ViciProtocolException("VICI: a " + p.type() + " answered command " + name));
              }
              String success = p.message().text("success");
              if ("no".equals(success)) {
                String why = p.message().text("errmsg");
                throw new CompletionException(
                    new ViciCommandException(name, why == null ? "no reason given" : why));
              }
              return p.message();
            });
  }

  /**
   * Subscribes {@code listener} to event {@code event} (registered with charon); completes once
   * charon confirmed the registration. The listener runs on the client's loop.
   */
  public CompletableFuture<AutoCloseable> subscribe(String event, Consumer<ViciMessage> listener) {
    Objects.requireNonNull(listener, "listener");
    return register(event)
        .thenApply(
            v -> {
              listeners(event).add(listener); // on the loop: the confirmation completed it
              return () ->
                  onLoop(
                      () -> {
                        listeners(event).remove(listener);
                        if (closed == null) {
                          unregister(event);
                        }
                      },
                      () -> {});
            });
  }

  /**
   * A streamed command: the events {@code event} charon sends while it answers {@code command} (as
   * {@code list-sas} sends one {@code list-sa} per IKE_SA), in order. The registration, the command
   * and the unregistration are queued together, so streams on one connection never mix: charon
   * answers each in turn, and the events of one come between its confirmation and its answer.
   */
  public List<ViciMessage> streamed(String command, ViciMessage arguments, String event)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    CompletableFuture<List<ViciMessage>> result = new CompletableFuture<>();
    onLoop(
        () -> {
          List<ViciMessage> got = new ArrayList<>();
          Consumer<ViciMessage> collect = got::add;
          CompletableFuture<ViciPacket> registered = register(event);
          registered.thenRun(() -> listeners(event).add(collect));
          command(command, arguments)
              .whenComplete(
                  (m, e) -> {
                    listeners(event).remove(collect);
                    if (closed == null) {
                      unregister(event); // queued before anything the caller sends next
                    }
                    if (registered.isCompletedExceptionally()) {
                      registered.whenComplete((x, r) -> result.completeExceptionally(r));
                    } else if (e != null) {
                      result.completeExceptionally(e);
                    } else {
                      result.complete(List.copyOf(got));
                    }
                  });
        },
        () -> result.completeExceptionally(closedException()));
    return await(result);
  }

  /** Waits for {@code f} with the client's timeout, unwrapping what it failed with. */
  public <T> T await(CompletableFuture<T> f)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    if (loop.inEventLoop()) {
      throw new IllegalStateException(
          "VICI " + socket + ": await called on the client's own loop, which would never answer");
    }
    try {
      return f.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof CompletionException && c.getCause() != null) {
        c = c.getCause();
      }
      if (c instanceof ViciCommandException v) {
        throw v;
      }
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof TimeoutException t) {
        throw t;
      }
      throw new IOException("VICI " + socket + ": " + c, c);
    }
  }

  private CompletableFuture<ViciPacket> register(String event) {
    return send(new ViciPacket(ViciPacket.Type.EVENT_REGISTER, event, ViciMessage.EMPTY), event)
        .thenApply(
            p -> {
              if (p.type() != ViciPacket.Type.EVENT_CONFIRM) {
                throw new CompletionException(
                    new ViciCommandException("event " + event, "charon does not know the event"));
              }
              return p;
            });
  }

  private CompletableFuture<ViciPacket> unregister(String event) {
    return send(new ViciPacket(ViciPacket.Type.EVENT_UNREGISTER, event, ViciMessage.EMPTY), event);
  }

  /** Loop only. */
  private List<Consumer<ViciMessage>> listeners(String event) {
    return subscribers.computeIfAbsent(event, e -> new ArrayList<>(1));
  }

  private CompletableFuture<ViciPacket> send(ViciPacket p, String what) {
    CompletableFuture<ViciPacket> f = new CompletableFuture<>();
    byte[] frame;
    try {
      frame = ViciCodec.frame(p);
    } catch (IllegalArgumentException e) {
      f.completeExceptionally(e);
      return f;
    }
    onLoop(() -> write(frame, what, f), () -> f.completeExceptionally(closedException()));
    return f;
  }

  /** Loop only: queues {@code f} for the next answer and writes its request. */
  private void write(byte[] frame, String what, CompletableFuture<ViciPacket> f) {
    if (closed != null) {
      f.completeExceptionally(closedException());
      return;
    }
    if (waiting.size() >= MAX_OUTSTANDING) {
      f.completeExceptionally(
          new IOException(
              "VICI " + socket + ": " + MAX_OUTSTANDING + " requests outstanding already"));
      return;
    }
    waiting.add(new Pending(what, f)); // in the order written: charon answers in that order
    Future<?> timer =
        time.schedule(
            loop,
            () ->
                f.completeExceptionally(
                    new TimeoutException("charon did not answer " + what + " within " + timeout)),
            timeout.toNanos(),
            TimeUnit.NANOSECONDS);
    f.whenComplete((x, e) -> timer.cancel(false));
    channel
        .writeAndFlush(Unpooled.wrappedBuffer(frame))
        .addListener(
            w -> {
              if (!w.isSuccess()) {
                end(
                    new IOException(
                        "VICI " + socket + ": write failed: " + w.cause().getMessage(), w.cause()));
              }
            });
  }

  private IOException closedException() {
    Throwable why = closed;
    return new IOException(
        "VICI " + socket + " is closed: " + (why == null ? "its loop stopped" : why.getMessage()));
  }

  /**
   * Runs {@code task} on the loop (at once when called there); {@code stopped} instead when the
   * loop no longer takes work (the client closed and its own loop stopped).
   */
  private void onLoop(Runnable task, Runnable stopped) {
    if (loop.inEventLoop()) {
      task.run();
      return;
    }
    try {
      loop.execute(task);
    } catch (RejectedExecutionException e) {
      stopped.run();
      return;
    }
    if (loop.isShuttingDown()) {
      // a task taken while the client's own loop stops may never run (Netty drops what comes after
      // its last turn): whoever waits on it learns at the loop's end, not at its own timeout
      // (ViciClientTest saw a command on a closed client wait 5 s under load)
      loop.terminationFuture().addListener(x -> stopped.run());
    }
  }

  // ---- charon's commands ------------------------------------------------------------------------

  /** {@code version}: the daemon, its version, the system. */
  public CompletableFuture<ViciMessage> version() {
    return command("version", ViciMessage.EMPTY);
  }

  /** {@code load-conn}: loads (or replaces) connection {@code name} as {@code conn} describes. */
  public CompletableFuture<ViciMessage> loadConn(String name, ViciMessage conn) {
    return command("load-conn", ViciMessage.builder().section(name, conn).build());
  }

  /** {@code unload-conn}: unloads connection {@code name}. */
  public CompletableFuture<ViciMessage> unloadConn(String name) {
    return command("unload-conn", ViciMessage.builder().put("name", name).build());
  }

  /**
   * {@code load-shared}: a shared secret ({@code type} {@code IKE} for a PSK) under {@code id}, for
   * the identities {@code owners}. The secret is copied into the request only; the caller zeroes
   * its own copy.
   */
  public CompletableFuture<ViciMessage> loadShared(
      String id, String type, byte[] secret, List<String> owners) {
    return command(
        "load-shared",
        ViciMessage.builder()
            .put("id", id)
            .put("type", type)
            .put("data", secret)
            .list("owners", owners)
            .build());
  }

  /** {@code unload-shared}: the shared secret loaded under {@code id}. */
  public CompletableFuture<ViciMessage> unloadShared(String id) {
    return command("unload-shared", ViciMessage.builder().put("id", id).build());
  }

  /**
   * {@code load-pool}: the virtual IP pools in {@code pools} (each a section named after its pool,
   * with its {@code addrs}).
   */
  public CompletableFuture<ViciMessage> loadPool(ViciMessage pools) {
    return command("load-pool", pools);
  }

  /** {@code unload-pool}: pool {@code name} (refused while an address of it is leased). */
  public CompletableFuture<ViciMessage> unloadPool(String name) {
    return command("unload-pool", ViciMessage.builder().put("name", name).build());
  }

  /** {@code load-cert}: a certificate ({@code type} {@code X509}, PEM or DER). */
  public CompletableFuture<ViciMessage> loadCert(String type, String flag, byte[] data) {
    return command(
        "load-cert",
        ViciMessage.builder().put("type", type).put("flag", flag).put("data", data).build());
  }

  /** {@code load-key}: a private key ({@code type} {@code any}, {@code rsa}, {@code ecdsa}...). */
  public CompletableFuture<ViciMessage> loadKey(String type, byte[] data) {
    return command("load-key", ViciMessage.builder().put("type", type).put("data", data).build());
  }

  /** {@code unload-key}: the private key of identifier {@code id} (as load-key answered it). */
  public CompletableFuture<ViciMessage> unloadKey(String id) {
    return command("unload-key", ViciMessage.builder().put("id", id).build());
  }

  /**
   * {@code clear-creds}: every credential loaded over VICI goes — keys, shared secrets, and the
   * certificates loaded with connections or by {@code load-cert} (charon has no command that
   * unloads one certificate) — and charon's certificate cache is flushed.
   */
  public CompletableFuture<ViciMessage> clearCreds() {
    return command("clear-creds", ViciMessage.EMPTY);
  }

  /** {@code get-shared}: the identifiers of the shared secrets loaded over VICI with one. */
  public CompletableFuture<ViciMessage> getShared() {
    return command("get-shared", ViciMessage.EMPTY);
  }

  /** {@code get-keys}: the identifiers of the private keys loaded over VICI. */
  public CompletableFuture<ViciMessage> getKeys() {
    return command("get-keys", ViciMessage.EMPTY);
  }

  /**
   * {@code initiate}: brings CHILD_SA {@code child} of connection {@code ike} up; charon answers
   * once it is up or failed, at most {@code within} later.
   */
  public CompletableFuture<ViciMessage> initiate(String child, String ike, Duration within) {
    return command(
        "initiate",
        ViciMessage.builder()
            .put("child", child)
            .put("ike", ike)
            .put("timeout", Long.toString(within.toMillis()))
            .build());
  }

  /**
   * {@code initiate}, as {@link #initiate}; when charon refuses, the exception's reason carries
   * what charon logged for connection {@code ike} while it tried ({@code control-log} at level 1:
   * the peer's {@code AUTHENTICATION_FAILED}, no proposal chosen, retransmits given up), not only
   * its bare {@code errmsg} ({@link ControlLog}: registered once, on first use).
   */
  public CompletableFuture<ViciMessage> initiateExplained(
      String child, String ike, Duration within) {
    CompletableFuture<ViciMessage> result = new CompletableFuture<>();
    onLoop(
        () -> {
          List<String> logged = controlLog.watch(ike);
          controlLogRegistered()
              .thenCompose(
                  v ->
                      command(
                          "initiate",
                          ViciMessage.builder()
                              .put("child", child)
                              .put("ike", ike)
                              .put("timeout", Long.toString(within.toMillis()))
                              .put("loglevel", "1")
                              .build()))
              .whenComplete(
                  (m, e) -> {
                    controlLog.unwatch(ike, logged);
                    if (e == null) {
                      result.complete(m);
                      return;
                    }
                    Throwable c = e instanceof CompletionException ? e.getCause() : e;
                    String why = ControlLog.explanation(logged);
                    if (c instanceof ViciCommandException v && !why.isEmpty()) {
                      c = new ViciCommandException(v.command(), v.reason() + ": " + why);
                    }
                    result.completeExceptionally(c);
                  });
        },
        () -> result.completeExceptionally(closedException()));
    return result;
  }

  /** Loop only: registered for charon's control log once, again after a failed attempt. */
  private CompletableFuture<Void> controlLogRegistered() {
    if (controlLogRegistered == null || controlLogRegistered.isCompletedExceptionally()) {
      if (controlLogRegistered == null) {
        listeners(ControlLog.EVENT).add(controlLog::logged);
      }
      controlLogRegistered = register(ControlLog.EVENT).thenApply(p -> null);
    }
    return controlLogRegistered;
  }

  /**
   * {@code terminate} with {@code force}, not waited for: the IKE_SA of connection {@code ike} and
   * its CHILD_SAs destroyed as soon as the DELETE is sent, without waiting for the peer's answer,
   * and charon answers at once. A peer whose charon restarted knows the SA no more and never
   * answers: charon would retransmit the DELETE for minutes, and with a timeout it answers only
   * when that runs out, and then that terminating failed although the SA is gone (strongSwan 5.9.8,
   * measured: 3,003 ms for a timeout of 3 s; none: 3 ms, the SA gone).
   */
  public CompletableFuture<ViciMessage> terminateIkeAtOnce(String ike) {
    return command(
        "terminate",
        ViciMessage.builder().put("ike", ike).put("force", "yes").put("timeout", "-1").build());
  }

  /** {@code terminate}: the IKE_SA of connection {@code ike}, with its CHILD_SAs. */
  public CompletableFuture<ViciMessage> terminateIke(String ike, Duration within) {
    return command(
        "terminate",
        ViciMessage.builder()
            .put("ike", ike)
            .put("timeout", Long.toString(within.toMillis()))
            .build());
  }

  /** {@code list-sas}: one {@code list-sa} message per IKE_SA ({@code ike} null: all of them). */
  public List<ViciMessage> listSas(String ike)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    ViciMessage.Builder b = ViciMessage.builder();
    if (ike != null) {
      b.put("ike", ike);
    }
    return streamed("list-sas", b.build(), "list-sa");
  }

  /**
   * {@code list-certs}: the certificates charon holds (loaded over VICI, with connections, or
   * received from peers), one {@code list-cert} event each, in the order charon sent them.
   */
  public List<ViciMessage> listCerts()
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    return streamed("list-certs", ViciMessage.EMPTY, "list-cert");
  }

  // ---- reading ----------------------------------------------------------------------------------

  /**
   * VICI's framing: a 4-byte big-endian length, 1 to {@value ViciCodec#MAX_PACKET}, then the
   * packet. Anything else ends the connection, named. Netty's {@code LengthFieldBasedFrameDecoder}
   * would frame it too; kept for the one error that names the bad length in VICI's terms (Netty's
   * passes a zero length on as an empty packet and words an oversized one as its own exception).
   */
  private static final class Frames extends ByteToMessageDecoder {
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
        throws ViciProtocolException {
      if (in.readableBytes() < 4) {
        return;
      }
      int n = in.getInt(in.readerIndex());
      if (n <= 0 || n > ViciCodec.MAX_PACKET) {
        throw new ViciProtocolException(
            "VICI frame length "
                + Integer.toUnsignedString(n)
                + " (expected 1 to "
                + ViciCodec.MAX_PACKET
                + ")");
      }
      if (in.readableBytes() < 4 + n) {
        return;
      }
      in.skipBytes(4);
      byte[] packet = new byte[n];
      in.readBytes(packet);
      out.add(ViciCodec.decode(packet));
    }
  }

  /** Hands each packet, the end and any failure to the client, on its loop. */
  private static final class Reader extends SimpleChannelInboundHandler<ViciPacket> {
    private final java.util.function.Supplier<ViciClient> client;

    Reader(java.util.function.Supplier<ViciClient> client) {
      this.client = client;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ViciPacket p) {
      client.get().dispatch(p);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      ViciClient c = client.get();
      if (c != null) {
        c.end(new EOFException("charon closed the VICI connection " + c.socket));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ViciClient c = client.get();
      Throwable why =
          cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null
              ? cause.getCause()
              : cause;
      if (c == null) {
        ctx.close();
      } else {
        c.end(why);
      }
    }
  }

  /** Loop only. */
  private void dispatch(ViciPacket p) {
    if (closed != null) {
      return;
    }
    if (p.type() == ViciPacket.Type.EVENT) {
      List<Consumer<ViciMessage>> l = subscribers.get(p.name());
      if (l != null) {
        for (Consumer<ViciMessage> c : List.copyOf(l)) {
          try {
            c.accept(p.message());
          } catch (RuntimeException e) {
            log.warn("VICI {}: a listener of {} failed: {}", socket, p.name(), e.toString());
          }
        }
      }
      return;
    }
    Pending head = waiting.poll();
    if (head == null) {
      end(new ViciProtocolException("VICI: a " + p.type() + " nobody asked for"));
      return;
    }
    head.answer().complete(p); // a late answer to a timed-out request is dropped here
  }

  /** Loop only: the connection's end, once; everything outstanding fails with {@code why}. */
  private void end(Throwable why) {
    if (closed != null) {
      return;
    }
    closed = why;
    List<Pending> failed = new ArrayList<>(waiting);
    waiting.clear();
    channel.close();
    IOException e =
        why instanceof IOException io ? io : new IOException("VICI " + socket + ": " + why, why);
    for (Consumer<Throwable> l : closeListeners) {
      try {
        l.accept(why); // first: whoever waits on a command learns of the end after its owner did
      } catch (RuntimeException x) {
        log.warn("VICI {}: a close listener failed: {}", socket, x.toString());
      }
    }
    for (Pending p : failed) {
      p.answer().completeExceptionally(e);
    }
    if (ownGroup != null) {
      ownGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }

  /** Closes the connection and returns once it has ended; whatever waits fails. */
  @Override
  public void close() {
    IOException why = new IOException("VICI " + socket + ": closed");
    if (loop.inEventLoop()) {
      end(why);
      return;
    }
    try {
      loop.submit(() -> end(why)).awaitUninterruptibly(10, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      // its loop has stopped: it ended already
    }
  }
}
