package dev.portcullis.active.router;

import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.code.ModuleLoader;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.packet.PacketView;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;
import dev.portcullis.active.verify.CodeSource;
import dev.portcullis.active.verify.Counters;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.active.verify.Session;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Active Router: receives active packets over UDP, verifies each (validity interval, session key
 * from the cache or derived from Kci, constant-time MAC, replay window), runs the packet's code and
 * forwards it to the next hop its destination routes to. Code secrets and modules come from the
 * Code Server on first need, without holding up other flows; packets of a flow whose secret is on
 * its way wait in a bounded queue. Every drop is counted by reason.
 */
public final class ActiveRouter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ActiveRouter.class);

  /** Largest datagram read; longer ones arrive truncated and are dropped as malformed. */
  public static final int MAX_DATAGRAM = 9216;

  /** Packets waiting for a code secret at once, across all codes. */
  public static final int MAX_PARKED = 4096;

  private final RosaConfig.Router config;
  private final RosaConfig domain;
  private final CodeServerClient codeServer;
  private final Clock clock;
  private final Counters counters = new Counters();
  private final FlowKeys keys;
  private final Verifier verifier;
  private final PacketView plain = new PacketView();
  private final Map<Integer, ActiveService> services = new ConcurrentHashMap<>();
  private final Map<Integer, CompletableFuture<ActiveService>> loading = new ConcurrentHashMap<>();
  private final EventLoopGroup group;
  private final Channel channel;
  private final Context context = new Context();
  private final Map<CompletableFuture<?>, ArrayDeque<DatagramPacket>> parkedQueues =
      new IdentityHashMap<>(); // event loop only
  private int parked;

  public ActiveRouter(
      RosaConfig domain,
      String id,
      CryptoRegistry registry,
      CodeServerClient codeServer,
      Clock clock)
      throws InterruptedException {
    this.domain = domain;
    this.config = domain.routers().get(id);
    if (config == null) {
      throw new IllegalArgumentException(
          "no router '"
              + id
              + "' in "
              + domain.source()
              + " (routers: "
              + domain.routers().keySet()
              + ")");
    }
    this.codeServer = codeServer;
    this.clock = clock;
    Set<MacAlgorithm> macs =
        config.legacyMacs()
            ? EnumSet.allOf(MacAlgorithm.class)
            : EnumSet.of(MacAlgorithm.HMAC_SHA256_128);
    FlowKeys.Settings settings =
        new FlowKeys.Settings(
            config.maxSessions(),
            1_000,
            domain.authServer().rotation().multipliedBy(domain.authServer().epochsKept()),
            Duration.ofSeconds(5));
    long skew = config.clockSkew().toSeconds();
    prewarm(registry, macs, skew);
    CodeSource source =
        new CodeSource() {
          @Override
          public CompletableFuture<byte[]> secret(int code, int epoch) {
            return secretAndModule(code, epoch);
          }

          @Override
          public boolean knows(int code) {
            RosaConfig.Code c = domain.code(code);
            return c != null && config.codes().contains(c.name());
          }

          @Override
          public CompletableFuture<int[]> epochs(int code) {
            RosaConfig.Code c = domain.code(code);
            if (c == null || !config.codes().contains(c.name())) {
              return CompletableFuture.failedFuture(notOurs(code)); // no request for it
            }
            return codeServer.epochs(code);
          }
        };
    this.keys = new FlowKeys(registry, source, clock, skew, settings);
    this.verifier = new Verifier(keys, counters, macs);
    Transport transport = Transport.best();
    this.group = transport.group(1);
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(transport.datagramChannel())
            .option(ChannelOption.SO_RCVBUF, 4 << 20)
            .option(ChannelOption.SO_SNDBUF, 4 << 20)
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM))
            .handler(new Handler());
    this.channel = b.bind(config.listen()).sync().channel();
    // Keys of flows past SET are wiped within a second even when no packets arrive.
    channel.eventLoop().scheduleAtFixedRate(keys::expire, 1, 1, TimeUnit.SECONDS);
    log.info(
        "router {} on {} ({}), verification {}, MACs {}, codes {}, {} routes",
        id,
        address(),
        transport,
        config.verify() ? "on" : "OFF",
        macs,
        config.codes(),
        config.routes().size());
  }

  public String id() {
    return config.id();
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  public Counters counters() {
    return counters;
  }

  public FlowKeys keys() {
    return keys;
  }

  /** The loaded service of a code, or null (tests and tools). */
  public ActiveService service(int code) {
    return services.get(code);
  }

  /**
   * Paper section 6.1: the first packets must not pay for class loading, JIT compilation and
   * provider set-up. Seals and verifies a few thousand packets under a throwaway secret.
   */
  private static void prewarm(CryptoRegistry registry, Set<MacAlgorithm> macs, long skew) {
    long t0 = System.nanoTime();
    byte[] kci = new byte[32];
    new SecureRandom().nextBytes(kci);
    Clock clock = Clock.systemUTC();
    long now = clock.millis() / 1000;
    try (FlowKeys k =
        new FlowKeys(
            registry,
            (c, e) -> CompletableFuture.completedFuture(kci.clone()),
            clock,
            skew,
            new FlowKeys.Settings(16, 4, Duration.ofMinutes(1), Duration.ofSeconds(1)))) {
      Verifier v = new Verifier(k, new Counters(), macs);
      for (MacAlgorithm m : macs) {
        Flow f =
            new Flow(
                0,
                now - 1,
                now + 60,
                InetAddress.getLoopbackAddress(),
                InetAddress.getLoopbackAddress(),
                0);
        SessionKdf kdf = new SessionKdf(registry);
        var prk = kdf.prepare(kci);
        PacketSealer s = new PacketSealer(registry, f, 0, m, kdf.macKey(prk, f, m), null);
        prk.destroy();
        byte[] payload = new byte[256];
        for (int i = 0; i < 3000; i++) {
          byte[] p = s.seal(payload);
          v.verify(ByteBuffer.wrap(p), 0, p.length);
        }
        s.destroy();
      }
    }
    Arrays.fill(kci, (byte) 0);
    log.debug("pre-warmed the verifier in {} ms", (System.nanoTime() - t0) / 1_000_000);
  }

  /** The router's code source: the secret, and the code's module if not yet loaded. */
  private static CodeSource.UnknownCodeException notOurs(int code) {
    return new CodeSource.UnknownCodeException(
        "code " + Integer.toUnsignedString(code) + " is not one this router runs");
  }

  private CompletableFuture<byte[]> secretAndModule(int code, int epoch) {
    RosaConfig.Code c = domain.code(code);
    if (c == null || !config.codes().contains(c.name())) {
      return CompletableFuture.failedFuture(notOurs(code));
    }
    CompletableFuture<ActiveService> service =
        services.containsKey(code)
            ? CompletableFuture.completedFuture(services.get(code))
            : loading.computeIfAbsent(code, x -> load(c));
    return codeServer.secret(code, epoch).thenCombine(service, (kci, s) -> kci);
  }

  private CompletableFuture<ActiveService> load(RosaConfig.Code c) {
    return codeServer
        .module(c.id())
        .thenApply(
            m -> {
              try {
                ActiveService s = ModuleLoader.load(m.jar(), m.server(), "code " + c.name());
                s.configure(c.settings());
                services.put(c.id(), s);
                log.info(
                    "router {}: loaded code {} ({} bytes, signature verified)",
                    id(),
                    c.name(),
                    m.jar().length);
                return s;
              } catch (ModuleLoader.RejectedModuleException | RuntimeException e) {
                log.error(
                    "router {}: refused the module of code {}: {}", id(), c.name(), e.getMessage());
                throw new CompletionException(e);
              }
            })
        .whenComplete(
            (s, e) -> {
              if (e != null) {
                loading.remove(c.id()); // let a later packet try again
              }
            });
  }

  private final class Handler extends SimpleChannelInboundHandler<DatagramPacket> {
    Handler() {
      super(false); // packets are released here, or kept while parked
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
      try {
        process(ctx, packet, false);
      } finally {
        packet.release();
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.warn("router {}: {}", id(), cause.toString()); // a socket error: keep serving
    }
  }

  private void process(ChannelHandlerContext ctx, DatagramPacket packet, boolean wasParked) {
    ByteBuf content = packet.content();
    int len = content.readableBytes();
    ByteBuffer nio =
        content.nioBufferCount() == 1
            ? content.internalNioBuffer(content.readerIndex(), len)
            : ByteBuffer.wrap(ByteBufUtil.getBytes(content));
    int start = nio.position();
    if (!config.verify()) {
      if (plain.wrap(nio, start, len) != null) {
        counters.count(Outcome.MALFORMED);
        return;
      }
      forward(ctx, plain, content, null, null);
      return;
    }
    try {
      Outcome o = verifier.verify(nio, start, len);
      if (o == Outcome.ACCEPTED) {
        run(ctx, content);
      } else if (o == Outcome.PENDING) {
        park(ctx, packet, wasParked);
      } else if (log.isDebugEnabled()) {
        log.debug(
            "router {}: dropped a packet from {}: {}",
            id(),
            packet.sender(),
            o == Outcome.MALFORMED ? verifier.malformation() : o);
      }
    } catch (RuntimeException e) {
      // Nothing a packet holds should get here; if something does, count it and keep serving.
      counters.count(Outcome.MALFORMED);
      log.warn("router {}: packet from {} failed: {}", id(), packet.sender(), e.toString());
    }
  }

  /**
   * Keeps a packet until its code secret arrives, in arrival order per secret: one queue per
   * pending fetch, drained first-in first-out on the event loop when the fetch completes.
   */
  private void park(ChannelHandlerContext ctx, DatagramPacket packet, boolean wasParked) {
    if (wasParked || parked >= MAX_PARKED) {
      counters.count(Outcome.CODE_UNAVAILABLE);
      return;
    }
    CompletableFuture<?> f = verifier.pending();
    ArrayDeque<DatagramPacket> q = parkedQueues.get(f);
    if (q == null) {
      q = new ArrayDeque<>();
      parkedQueues.put(f, q);
      f.whenComplete((x, e) -> ctx.channel().eventLoop().execute(() -> drain(ctx, f)));
    }
    parked++;
    counters.count(Outcome.PENDING);
    q.add(packet.retain());
  }

  private void drain(ChannelHandlerContext ctx, CompletableFuture<?> f) {
    ArrayDeque<DatagramPacket> q = parkedQueues.remove(f);
    for (DatagramPacket p = q.poll(); p != null; p = q.poll()) {
      parked--;
      try {
        process(ctx, p, true);
      } finally {
        p.release();
      }
    }
    ctx.flush();
  }

  private void run(ChannelHandlerContext ctx, ByteBuf content) {
    PacketView p = verifier.packet();
    ActiveService service = services.get(p.code());
    if (service == null) {
      counters.count(Outcome.UNKNOWN_CODE);
      return;
    }
    context.reset(p);
    ActiveService.Verdict verdict;
    try {
      verdict = service.process(context);
    } catch (RuntimeException e) {
      // A faulty service drops its packet; the router goes on serving every flow.
      log.warn("router {}: code {} failed on a packet: {}", id(), p.code(), e.toString());
      verdict = ActiveService.Verdict.DROP;
    }
    if (verdict == ActiveService.Verdict.DROP) {
      counters.count(Outcome.SERVICE_DROP);
      return;
    }
    forward(ctx, p, content, context.replacement, verifier.session());
  }

  private void forward(
      ChannelHandlerContext ctx,
      PacketView p,
      ByteBuf content,
      byte[] newPayload,
      Session session) {
    InetSocketAddress next = route(p);
    if (next == null) {
      counters.count(Outcome.NO_ROUTE);
      return;
    }
    ByteBuf out =
        newPayload == null
            ? content.retain()
            : Unpooled.wrappedBuffer(Resealer.reseal(p, newPayload, session.mac()));
    ctx.write(new DatagramPacket(out, next));
    counters.count(Outcome.ACCEPTED);
  }

  private InetSocketAddress route(PacketView p) {
    boolean v6 = p.ipv6();
    long hi = p.destinationHigh();
    long lo = p.destinationLow();
    for (RosaConfig.Route r : config.routes()) {
      if (r.destination().contains(v6, hi, lo)) {
        return r.nextHop();
      }
    }
    return null;
  }

  /** What a service sees; one per router, refilled for each packet on the event loop. */
  private final class Context implements PacketContext {
    private PacketView p;
    byte[] replacement;
    private ByteBuffer plaintext;

    void reset(PacketView p) {
      this.p = p;
      this.replacement = null;
      this.plaintext = null;
    }

    @Override
    public String router() {
      return id();
    }

    @Override
    public long user() {
      return p.user();
    }

    @Override
    public int code() {
      return p.code();
    }

    @Override
    public long sequence() {
      return p.sequence();
    }

    @Override
    public String source() {
      return p.source().getHostAddress();
    }

    @Override
    public String destination() {
      return p.destination().getHostAddress();
    }

    @Override
    public boolean encrypted() {
      return p.encrypted();
    }

    @Override
    public int payloadLength() {
      return p.payloadLength();
    }

    @Override
    public ByteBuffer payload() {
      if (plaintext == null) {
        if (p.encrypted() && services.get(p.code()).readsPayload()) {
          ByteBuffer out = ByteBuffer.allocate(p.payloadLength());
          if (!verifier.decrypt(out)) {
            out.limit(0);
          }
          plaintext = out.flip().asReadOnlyBuffer();
        } else {
          ByteBuffer b = p.buffer().duplicate();
          b.limit(p.payloadOffset() + p.payloadLength()).position(p.payloadOffset());
          plaintext = b.slice().asReadOnlyBuffer();
        }
      }
      return plaintext.duplicate();
    }

    @Override
    public void replacePayload(byte[] payload) {
      if (p.encrypted()) {
        throw new IllegalStateException(
            "an encrypted payload cannot be replaced: re-encryption would reuse a GCM nonce");
      }
      replacement = payload.clone();
    }

    @Override
    public long nowMillis() {
      return clock.millis();
    }
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    keys.close();
    log.info("router {} stopped: {}", id(), counters);
  }
}
