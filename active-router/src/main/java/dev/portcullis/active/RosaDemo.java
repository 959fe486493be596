package dev.portcullis.active;

import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.code.CodeServer;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.packet.ActivePacket;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.source.PacketSink;
import dev.portcullis.active.source.Source;
import dev.portcullis.active.verify.Outcome;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The whole domain on loopback: Code Server, Authorization Server, the routers of the configuration
 * (a chain), a destination host, and a Source sending valid, tampered, replayed and expired
 * packets; prints what each router accepted and dropped, and why.
 */
public final class RosaDemo {
  /** What happened, for the printout and for tests. */
  public record Report(
      Map<String, Map<Outcome, Long>> routers, List<String> delivered, List<String> lines) {
    public long count(String router, Outcome o) {
      return routers.getOrDefault(router, Map.of()).getOrDefault(o, 0L);
    }
  }

  private RosaDemo() {}

  public static Report run(RosaConfig config, PrintStream out) throws Exception {
    List<String> lines = new ArrayList<>();
    Consumer<String> say =
        s -> {
          lines.add(s);
          out.println(s);
        };
    Clock clock = Clock.systemUTC();
    Domain d = new Domain(config, clock);
    List<AutoCloseable> open = new ArrayList<>();
    try {
      CodeServer cs = d.codeServer();
      open.add(cs);
      AuthServer as = d.authServer();
      open.add(as);
      Map<String, ActiveRouter> routers = new LinkedHashMap<>();
      Set<InetSocketAddress> routerAddresses = new HashSet<>();
      for (String id : config.routers().keySet()) {
        ActiveRouter r = d.router(id);
        open.add(r);
        routers.put(id, r);
        routerAddresses.add(config.routers().get(id).listen());
      }
      // Destination hosts: every next hop that is not a router.
      List<PacketSink> sinks = new ArrayList<>();
      for (RosaConfig.Router r : config.routers().values()) {
        for (RosaConfig.Route rt : r.routes()) {
          if (!routerAddresses.contains(rt.nextHop())
              && sinks.stream().noneMatch(s -> s.address().equals(rt.nextHop()))) {
            PacketSink s = new PacketSink(rt.nextHop());
            open.add(s);
            sinks.add(s);
          }
        }
      }
      String first = config.routers().keySet().iterator().next();
      InetSocketAddress entry = config.routers().get(first).listen();
      String user = config.users().keySet().iterator().next();
      Source source = d.source(user);
      long now = clock.millis() / 1000;
      String dst = "127.0.0.1";

      say.accept("== " + user + " asks for code 'tagger' for 10 minutes");
      SessionGrant g =
          source.request(
              "tagger", "127.0.0.1", dst, now, now + 600, MacAlgorithm.HMAC_SHA256_128, false);
      say.accept("   granted: " + g);
      PacketSealer tagger = g.sealer(d.registry());
      g.destroy();
      try (DatagramSocket udp = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
        List<byte[]> sent = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
          byte[] p = tagger.seal(("hello " + i).getBytes(StandardCharsets.US_ASCII));
          sent.add(p);
          send(udp, p, entry);
        }
        say.accept("   sent 5 valid packets to " + first);

        byte[] tampered = tagger.seal("pay me 10".getBytes(StandardCharsets.US_ASCII));
        tampered[ActivePacket.HEADER_V4 + 7] = '9'; // "pay me 90"
        send(udp, tampered, entry);
        say.accept("   sent 1 packet with a payload byte changed in flight");
        byte[] forged = tagger.seal(new byte[4]);
        forged[ActivePacket.OFF_USER + 7] ^= 1; // claims another user
        send(udp, forged, entry);
        say.accept("   sent 1 packet claiming another user (U changed)");
        send(udp, sent.get(0), entry);
        send(udp, sent.get(1), entry);
        say.accept("   replayed 2 of the valid packets");

        say.accept("== " + user + " asks for code 'counter', encrypted, ending in 2 seconds");
        long t = clock.millis() / 1000;
        SessionGrant shortG =
            source.request(
                "counter", "127.0.0.1", dst, t, t + 2, MacAlgorithm.HMAC_SHA256_128, true);
        PacketSealer shortS = shortG.sealer(d.registry());
        shortG.destroy();
        send(udp, shortS.seal("secret 1".getBytes(StandardCharsets.US_ASCII)), entry);
        say.accept("   sent 1 encrypted packet at once");
        long skew = config.routers().get(first).clockSkew().toSeconds();
        long waitUntil = (t + 2 + skew + 1) * 1000 + 200;
        Thread.sleep(Math.max(0, waitUntil - clock.millis()));
        send(udp, shortS.seal("secret 2".getBytes(StandardCharsets.US_ASCII)), entry);
        say.accept("   sent 1 more after SET (+" + skew + " s allowed skew) had passed");

        say.accept("== " + user + " asks for code 'limiter'; sends a burst of 30");
        SessionGrant lg =
            source.request(
                "limiter", "127.0.0.1", dst, now, now + 600, MacAlgorithm.HMAC_SHA256_128, false);
        PacketSealer limited = lg.sealer(d.registry());
        lg.destroy();
        for (int i = 0; i < 30; i++) {
          send(udp, limited.seal(new byte[64]), entry);
        }
        limited.destroy();
        shortS.destroy();

        String other =
            config.users().size() > 1 ? new ArrayList<>(config.users().keySet()).get(1) : null;
        if (other != null) {
          say.accept("== " + other + " asks for code 'tagger' (no rule allows it)");
          try {
            d.source(other)
                .request(
                    "tagger", "127.0.0.1", dst, now, now + 60, MacAlgorithm.HMAC_SHA256_128, true);
            say.accept("   granted (unexpected)");
          } catch (Source.RefusedException e) {
            say.accept("   " + e.getMessage());
          }
        }
      }
      // Let the last packets cross the chain.
      long deadline = System.currentTimeMillis() + 3000;
      long expected = 5;
      while (System.currentTimeMillis() < deadline
          && sinks.stream().mapToLong(PacketSink::received).sum() < expected + 6) {
        Thread.sleep(50);
      }
      Thread.sleep(200);
      Map<String, Map<Outcome, Long>> counts = new LinkedHashMap<>();
      say.accept("");
      say.accept(String.format("%-8s %s", "router", "packets by outcome"));
      for (ActiveRouter r : routers.values()) {
        counts.put(r.id(), r.counters().snapshot());
        say.accept(String.format("%-8s %s", r.id(), r.counters().snapshot()));
      }
      List<String> delivered = new ArrayList<>();
      sinks.forEach(s -> delivered.addAll(s.payloads()));
      say.accept("");
      say.accept(
          "destination received "
              + sinks.stream().mapToLong(PacketSink::received).sum()
              + " packets; clear payloads:");
      for (String p : delivered) {
        if (!p.chars().allMatch(c -> c == 0)) {
          say.accept("  " + p);
        }
      }
      tagger.destroy();
      return new Report(counts, delivered, lines);
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        open.get(i).close();
      }
      d.registry().close();
    }
  }

  private static void send(DatagramSocket udp, byte[] p, InetSocketAddress to) throws Exception {
    udp.send(new DatagramPacket(p, p.length, to));
    Thread.sleep(2); // keep loopback from reordering bursts beyond what the demo explains
  }
}
