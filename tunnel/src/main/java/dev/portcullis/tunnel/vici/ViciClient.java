package dev.portcullis.tunnel.vici;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of charon's control socket (strongSwan's VICI protocol): asynchronous commands, event
 * subscriptions and streamed commands ({@code list-sas}) over one unix socket connection.
 *
 * <p>charon answers the requests of one connection in the order they came, one answer each, and may
 * send events between them; so every request waits in one queue for its answer, and events go to
 * their subscribers by name. A command times out after the client's timeout (its answer, when it
 * still comes, is read and dropped); a command charon refuses fails with a {@link
 * ViciCommandException} carrying charon's {@code errmsg}; bytes that are not VICI, a packet over
 * {@value ViciCodec#MAX_PACKET} bytes or the daemon going away end the connection and fail
 * everything outstanding, and the close listeners hear why. At most {@value #MAX_OUTSTANDING}
 * requests wait at once. Thread-safe.
 */
public final class ViciClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ViciClient.class);

  /** Requests waiting for their answers at once, at most. */
  public static final int MAX_OUTSTANDING = 1024;

  /** A request waiting for its answer. */
  private record Pending(String what, CompletableFuture<ViciPacket> answer) {}

  private final Path socket;
  private final SocketChannel channel;
  private final Duration timeout;
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>(); // guarded by itself
  private final Map<String, List<Consumer<ViciMessage>>> subscribers = new ConcurrentHashMap<>();
  private final ControlLog controlLog =
      new ControlLog(
          l ->
              subscribers
                  .computeIfAbsent(ControlLog.EVENT, e -> new CopyOnWriteArrayList<>())
                  .add(l),
          () -> register(ControlLog.EVENT));
  private final List<Consumer<Throwable>> closeListeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService timers;
  private final Thread reader;
  private final Object streaming = new Object(); // one streamed command at a time
  private volatile Throwable closed;

  private ViciClient(Path socket, SocketChannel channel, Duration timeout) {
    this.socket = socket;
    this.channel = channel;
    this.timeout = timeout;
    this.timers =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vici-timeouts");
              t.setDaemon(true);
              return t;
            });
    this.reader = new Thread(this::read, "vici-reader " + socket.getFileName());
    this.reader.setDaemon(true);
  }

  /**
   * Connects to charon's VICI socket.
   *
   * @param timeout how long each command may take
   * @throws IOException naming the socket when it cannot be reached (charon not running, no
   *     permission)
   */
  public static ViciClient connect(Path socket, Duration timeout) throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      ch.connect(UnixDomainSocketAddress.of(socket));
    } catch (IOException e) {
      ch.close();
      throw new IOException(
          "charon's VICI socket " + socket + " cannot be reached (is charon running?): " + e, e);
    }
    ViciClient c = new ViciClient(socket, ch, timeout);
    c.reader.start();
    return c;
  }

  /** Hears why the connection ended (the daemon went, bad bytes, or {@link #close}). */
  public void onClose(Consumer<Throwable> listener) {
    closeListeners.add(listener);
    Throwable why = closed;
    if (why != null) {
      listener.accept(why);
    }
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
                throw new java.util.concurrent.CompletionException(
                    new ViciCommandException(name, "unknown command"));
              }
              if (p.type() != ViciPacket.Type.CMD_RESPONSE) {
                throw new java.util.concurrent.CompletionException(
                    new ViciProtocolException("VICI: a " + p.type() + " answered command " + name));
              }
              String success = p.message().text("success");
              if ("no".equals(success)) {
                String why = p.message().text("errmsg");
                throw new java.util.concurrent.CompletionException(
                    new ViciCommandException(name, why == null ? "no reason given" : why));
              }
              return p.message();
            });
  }

  /**
   * Subscribes {@code listener} to event {@code event} (registered with charon); completes once
   * charon confirmed the registration.
   */
  public CompletableFuture<AutoCloseable> subscribe(String event, Consumer<ViciMessage> listener) {
    Objects.requireNonNull(listener, "listener");
    return register(event)
        .thenApply(
            v -> {
              subscribers.computeIfAbsent(event, e -> new CopyOnWriteArrayList<>()).add(listener);
              return () -> {
                List<Consumer<ViciMessage>> l = subscribers.get(event);
                if (l != null) {
                  l.remove(listener);
                }
                if (isOpen()) {
                  unregister(event);
                }
              };
            });
  }

  /**
   * A streamed command: the events {@code event} charon sends while it answers {@code command} (as
   * {@code list-sas} sends one {@code list-sa} per IKE_SA), in order. One streamed command runs at
   * a time on a connection, so that streams do not mix.
   */
  public List<ViciMessage> streamed(String command, ViciMessage arguments, String event)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    synchronized (streaming) {
      List<ViciMessage> got = new CopyOnWriteArrayList<>();
      Consumer<ViciMessage> collect = got::add;
      await(register(event));
      subscribers.computeIfAbsent(event, e -> new CopyOnWriteArrayList<>()).add(collect);
      try {
        await(command(command, arguments));
        return new ArrayList<>(got);
      } finally {
        subscribers.get(event).remove(collect);
        if (isOpen()) {
          // waited for: the connection is as it was when the next call begins
          await(unregister(event));
        }
      }
    }
  }

  /** Waits for {@code f} with the client's timeout, unwrapping what it failed with. */
  public <T> T await(CompletableFuture<T> f)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    try {
      return f.get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
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
                throw new java.util.concurrent.CompletionException(
                    new ViciCommandException("event " + event, "charon does not know the event"));
              }
              return p;
            });
  }

  private CompletableFuture<ViciPacket> unregister(String event) {
    return send(new ViciPacket(ViciPacket.Type.EVENT_UNREGISTER, event, ViciMessage.EMPTY), event);
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
    synchronized (waiting) {
      Throwable why = closed;
      if (why != null) {
        f.completeExceptionally(
            new IOException("VICI " + socket + " is closed: " + why.getMessage()));
        return f;
      }
      if (waiting.size() >= MAX_OUTSTANDING) {
        f.completeExceptionally(
            new IOException(
                "VICI " + socket + ": " + MAX_OUTSTANDING + " requests outstanding already"));
        return f;
      }
      waiting.add(new Pending(what, f)); // in the order written: charon answers in that order
      // scheduled under the lock: end() cannot have stopped the timers while closed is null
      var timer =
          timers.schedule(
              () ->
                  f.completeExceptionally(
                      new TimeoutException("charon did not answer " + what + " within " + timeout)),
              timeout.toMillis(),
              TimeUnit.MILLISECONDS);
      f.whenComplete((x, e) -> timer.cancel(false));
      try {
        ByteBuffer b = ByteBuffer.wrap(frame);
        while (b.hasRemaining()) {
          channel.write(b);
        }
      } catch (IOException e) {
        end(new IOException("VICI " + socket + ": write failed: " + e.getMessage(), e));
        return f;
      }
    }
    return f;
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
    List<String> logged = controlLog.watch(ike);
    return controlLog
        .registered()
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
        .handle(
            (m, e) -> {
              controlLog.unwatch(ike, logged);
              if (e == null) {
                return m;
              }
              Throwable c =
                  e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
              String why = ControlLog.explanation(logged);
              if (c instanceof ViciCommandException v && !why.isEmpty()) {
                c = new ViciCommandException(v.command(), v.reason() + ": " + why);
              }
              throw new java.util.concurrent.CompletionException(c);
            });
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

  // ---- reading ----------------------------------------------------------------------------------

  private void read() {
    ByteBuffer length = ByteBuffer.allocate(4);
    try {
      while (true) {
        length.clear();
        fill(length);
        int n = length.getInt(0);
        if (n <= 0 || n > ViciCodec.MAX_PACKET) {
          throw new ViciProtocolException(
              "VICI frame length "
                  + Integer.toUnsignedString(n)
                  + " (expected 1 to "
                  + ViciCodec.MAX_PACKET
                  + ")");
        }
        ByteBuffer packet = ByteBuffer.allocate(n);
        fill(packet);
        dispatch(ViciCodec.decode(packet.array()));
      }
    } catch (IOException e) {
      end(e);
    }
  }

  private void fill(ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      if (channel.read(b) < 0) {
        throw new EOFException("charon closed the VICI connection " + socket);
      }
    }
  }

  private void dispatch(ViciPacket p) throws ViciProtocolException {
    if (p.type() == ViciPacket.Type.EVENT) {
      for (Consumer<ViciMessage> l : subscribers.getOrDefault(p.name(), List.of())) {
        try {
          l.accept(p.message());
        } catch (RuntimeException e) {
          log.warn("VICI {}: a listener of {} failed: {}", socket, p.name(), e.toString());
        }
      }
      return;
    }
    Pending head;
    synchronized (waiting) {
      head = waiting.poll();
    }
    if (head == null) {
      throw new ViciProtocolException("VICI: a " + p.type() + " nobody asked for");
    }
    head.answer().complete(p); // a late answer to a timed-out request is dropped here
  }

  private void end(Throwable why) {
    List<Pending> failed;
    synchronized (waiting) {
      if (closed != null) {
        return;
      }
      closed = why;
      failed = new ArrayList<>(waiting);
      waiting.clear();
    }
    try {
      channel.close();
    } catch (IOException e) {
      // closing anyway
    }
    timers.shutdownNow();
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
  }

  /** Closes the connection; whatever waits fails. */
  @Override
  public void close() {
    end(new IOException("VICI " + socket + ": closed"));
  }
}
