package dev.portcullis.active.cli;

import dev.portcullis.active.Domain;
import dev.portcullis.active.RosaDemo;
import dev.portcullis.active.auth.AuthServer;
import dev.portcullis.active.auth.SessionGrant;
import dev.portcullis.active.code.CodeServer;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.net.HttpsEndpoint;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.router.ActiveRouter;
import dev.portcullis.active.source.Source;
import dev.portcullis.metrics.MetricsEndpoint;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Programs;
import dev.portcullis.support.Signals;
import dev.portcullis.support.Threads;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar active-router.jar <command>}: the ROSA domain's command lines. */
@Command(
    name = "active-router",
    mixinStandardHelpOptions = true,
    versionProvider = Cli.Version.class,
    description = "ROSA active networking: routers, Authorization Server, Code Server, Source.",
    subcommands = {
      ActiveMain.RouterCommand.class,
      ActiveMain.AuthServerCommand.class,
      ActiveMain.CodeServerCommand.class,
      ActiveMain.SourceCommand.class,
      ActiveMain.DemoCommand.class
    })
public final class ActiveMain implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    throw Cli.commandNeeded(spec);
  }

  public static void main(String[] args) {
    Programs.start("dev/portcullis/active/cli/logback-active.xml");
    System.exit(execute(args));
  }

  /** Runs a command line; returns the exit code (for tests). */
  public static int execute(String... args) {
    // A user mistake (config, refusal, missing file) is one line and exit 2, not a stack trace.
    return Cli.of("active-router", new ActiveMain()).execute(args);
  }

  abstract static class WithConfig {
    @Option(
        names = "--config",
        defaultValue = Cli.CONF + "/rosa.xml",
        description = "The domain's rosa.xml (default: ${DEFAULT-VALUE}).")
    Path config;

    RosaConfig load() throws ConfigException {
      return RosaConfig.load(config);
    }

    /**
     * Runs one of the domain's HTTPS servers until stopped, with its metrics endpoint when the
     * config gives {@code component} one.
     */
    <T extends AutoCloseable> int serve(
        String component, Start<T> start, Function<T, HttpsEndpoint.Stats> stats) throws Exception {
      RosaConfig c = load();
      Domain d = new Domain(c, Clock.systemUTC());
      T server = start.start(d);
      InetSocketAddress at = c.metricsOf(component);
      Programs.closeOnStop(
              "active-router",
              withMetrics(
                  at == null
                      ? null
                      : ComponentMetrics.server(at, component, d, stats.apply(server)),
                  server))
          .await();
      return 0;
    }
  }

  /** Starts a server of the domain. */
  interface Start<T extends AutoCloseable> {
    T start(Domain d) throws Exception;
  }

  /** {@code c}, closing its metrics endpoint (if any) first: not ready once it stops. */
  static AutoCloseable withMetrics(MetricsEndpoint m, AutoCloseable c) {
    return m == null
        ? c
        : () -> {
          m.close();
          c.close();
        };
  }

  @Command(name = "router", description = "Runs one Active Router of the domain.")
  static final class RouterCommand extends WithConfig implements Callable<Integer> {
    @Option(names = "--id", required = true, description = "The router's id in the config.")
    String id;

    @Option(
        names = "--stats-every",
        defaultValue = "PT10S",
        description =
            "How often to log the counters (ISO-8601 duration; default ${DEFAULT-VALUE}).")
    Duration statsEvery;

    @Override
    public Integer call() throws Exception {
      RosaConfig c = load();
      c.router(id); // an unknown id: "no such router", before the domain's PKI is touched
      Domain d = new Domain(c, Clock.systemUTC());
      ActiveRouter r = d.router(id);
      // SIGHUP: read the crypto table again (the registry logs the switch, or keeps the running
      // table and says why).
      Signals.on(
          "HUP",
          () -> {
            try {
              d.registry().reload();
            } catch (ConfigException e) {
              // logged by the registry
            }
          },
          LoggerFactory.getLogger(ActiveMain.class));
      Threads.owner("router-stats")
          .scheduleAtFixedRate(
              () -> System.out.println(r.id() + " " + r.counters()),
              statsEvery.toMillis(),
              statsEvery.toMillis(),
              TimeUnit.MILLISECONDS);
      InetSocketAddress at = c.metricsOf(id);
      MetricsEndpoint m = at == null ? null : ComponentMetrics.router(at, d, r);
      Programs.closeOnStop("active-router", withMetrics(m, r)).await();
      return 0;
    }
  }

  @Command(name = "auth-server", description = "Runs the Authorization Server.")
  static final class AuthServerCommand extends WithConfig implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return serve(RosaConfig.AUTH_SERVER, Domain::authServer, AuthServer::httpStats);
    }
  }

  @Command(name = "code-server", description = "Runs the Code Server.")
  static final class CodeServerCommand extends WithConfig implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      return serve(RosaConfig.CODE_SERVER, Domain::codeServer, CodeServer::httpStats);
    }
  }

  @Command(
      name = "source",
      description = "Obtains a session from the Authorization Server and sends protected packets.")
  static final class SourceCommand extends WithConfig implements Callable<Integer> {
    @Option(names = "--user", required = true)
    String user;

    @Option(names = "--code", required = true, description = "The code's name.")
    String code;

    @Option(names = "--router", required = true, description = "The first router's id.")
    String router;

    @Option(names = "--from", defaultValue = "127.0.0.1", description = "IPs (${DEFAULT-VALUE}).")
    String from;

    @Option(names = "--to", defaultValue = "127.0.0.1", description = "IPd (${DEFAULT-VALUE}).")
    String to;

    @Option(names = "--duration", defaultValue = "PT5M", description = "SET - SST.")
    Duration duration;

    @Option(
        names = "--mac",
        defaultValue = "hmac-sha256-128",
        description = "hmac-sha256-128, or legacy hmac-sha1-96 / hmac-md5-96.")
    String mac;

    @Option(names = "--encrypt", description = "Encrypt payloads (AES-128-GCM).")
    boolean encrypt;

    @Option(names = "--count", defaultValue = "10")
    int count;

    @Option(names = "--payload", defaultValue = "hello", description = "Text; a number is added.")
    String payload;

    @Override
    public Integer call() throws Exception {
      Domain d = new Domain(load(), Clock.systemUTC());
      RosaConfig.Router r = d.config().router(router);
      Source s = d.source(user);
      long now = System.currentTimeMillis() / 1000;
      SessionGrant g =
          s.request(
              code, from, to, now, now + duration.toSeconds(), MacAlgorithm.ofLabel(mac), encrypt);
      System.out.println("granted " + g);
      PacketSealer sealer = g.sealer(d.registry());
      g.destroy();
      InetSocketAddress to = r.listen();
      try (DatagramSocket udp = new DatagramSocket()) {
        for (int i = 1; i <= count; i++) {
          byte[] p = sealer.seal((payload + " " + i).getBytes(StandardCharsets.UTF_8));
          udp.send(new DatagramPacket(p, p.length, to));
        }
      }
      sealer.destroy();
      System.out.println("sent " + count + " packets to " + router + " at " + to);
      d.registry().close();
      return 0;
    }
  }

  @Command(
      name = "demo",
      description =
          "Runs the whole domain on loopback and sends valid, tampered, replayed and expired"
              + " packets.")
  static final class DemoCommand extends WithConfig implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      RosaDemo.run(load(), System.out);
      return 0;
    }
  }
}
