package dev.portcullis.active.router;

import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.verify.Counters;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.support.Binding;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Active Router: receives active packets over UDP, verifies each (validity interval, session key
 * from the cache or derived from Kci, constant-time MAC, replay window), runs the packet's code and
 * forwards it to the next hop its destination routes to. This class sets the router up and owns its
 * lifetime; the work is done by its parts: {@link PacketHandler} (one packet's fate, counted once),
 * {@link ParkedPackets} (packets waiting for a code secret), {@link CodeModules} (secrets and
 * modules from the Code Server, for this router's codes only) and {@link RouteTable}.
 */
public final class ActiveRouter extends Lifecycle.Bound {

  private static final Logger log = LoggerFactory.getLogger(ActiveRouter.class);

  /** Largest datagram read; longer ones arrive truncated and are dropped as malformed. */
  public static final int MAX_DATAGRAM = 9216;

  /** Packets waiting for a code secret at once, across all codes. */
  public static final int MAX_PARKED = ParkedPackets.MAX;

  private final RosaConfig.Router config;
  private final Counters counters = new Counters();
  private final FlowKeys keys;
  private final CodeModules modules;
  private final EventLoopGroup group;
  private final Channel channel;

  public ActiveRouter(
      RosaConfig domain,
      String id,
      CryptoRegistry registry,
      CodeServerClient codeServer,
      Clock clock)
      throws InterruptedException {
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
    prewarm(registry, macs, skew, clock);
    this.modules = new CodeModules(domain, config, codeServer);
    this.keys = new FlowKeys(registry, modules, clock, skew, settings);
    RouteTable routes = new RouteTable(config.routes());
    PacketHandler handler =
        new PacketHandler(
            id,
            config.verify(),
            new Verifier(keys, macs),
            modules::service,
            routes,
            counters,
            clock);
    Transport transport = Transport.best();
    this.group = transport.group(1);
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(transport.datagramChannel())
            .option(ChannelOption.SO_RCVBUF, 4 << 20)
            .option(ChannelOption.SO_SNDBUF, 4 << 20)
            .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM))
            .handler(handler);
    try {
      this.channel = Binding.bind(b, config.listen(), "router " + id);
    } catch (BindException e) {
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      keys.close();
      throw new UncheckedIOException(e.getMessage(), e); // the address, named: exit 2
    }
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
        routes.size());
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
    return modules.service(code);
  }

  /**
   * Paper section 6.1: the first packets must not pay for class loading, JIT compilation and
   * provider set-up. Seals and verifies a few thousand packets under a throwaway secret.
   */
  private static void prewarm(
      CryptoRegistry registry, Set<MacAlgorithm> macs, long skew, Clock clock) {
    long t0 = System.nanoTime();
    byte[] kci = new byte[32];
    new SecureRandom().nextBytes(kci);
    long now = clock.millis() / 1000;
    try (FlowKeys k =
        new FlowKeys(
            registry,
            (c, e) -> CompletableFuture.completedFuture(kci.clone()),
            clock,
            skew,
            new FlowKeys.Settings(16, 4, Duration.ofMinutes(1), Duration.ofSeconds(1)))) {
      Verifier v = new Verifier(k, macs);
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

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    keys.close();
    log.info("router {} stopped: {}", id(), counters);
    stoppedNow();
  }
}
