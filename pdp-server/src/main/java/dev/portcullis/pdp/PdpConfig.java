package dev.portcullis.pdp;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.CopsCodec;
import dev.portcullis.pdp.connection.ConnectionLimits;
import dev.portcullis.pdp.connection.PdpSecurity;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.state.StateConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.Durations;
import dev.portcullis.support.Glob;
import dev.portcullis.support.XmlConfigReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.w3c.dom.Element;

/**
 * The PDP server's configuration ({@code pdp.xml}), validated: where to listen, timers, limits,
 * which policy engine serves each client type, redirects, audit. Relative paths in the file are
 * resolved against the file's directory. Reference: docs/pdp.md.
 *
 * @param clientTypes client type code to its engine and policy
 * @param audit the audit file, or null for none
 * @param security TLS, Integrity and protection levels, or null for plain COPS
 * @param crypto the crypto provider table ({@code <crypto config=...>}), or null for the built-in
 *     defaults
 * @param state the store the fleet shares ({@code <state>}, docs/fleet.md), or null: nothing is
 *     shared
 * @param fleet how this member shares load with the others ({@code <fleet>}), or null: the defaults
 *     (never redirect for load; drain for 10 s on SIGTERM)
 * @param maxPendingDecisions per connection, requests an asynchronous engine may be deciding at
 *     once ({@code <limits max-pending-decisions>}); beyond, a REQ is answered "Unable to process"
 * @param drain on SIGTERM, how long to let decisions being made finish before PEPs are closed with
 *     "Shutting down" ({@code <shutdown drain>}, default 10 s)
 */
public record PdpConfig(
    String source,
    InetAddress address,
    int port,
    Duration keepAlive,
    Duration accounting,
    Duration handshake,
    int maxMessageSize,
    int maxHandles,
    int maxMessagesPerSecond,
    int maxConnections,
    int maxPendingDecisions,
    Map<Integer, ClientTypeConfig> clientTypes,
    List<Redirect> redirects,
    Path audit,
    Duration statsInterval,
    PdpSecurity security,
    Path crypto,
    StateConfig state,
    Fleet fleet,
    InetSocketAddress metrics,
    Duration drain,
    Control control) {

  /**
   * The operator endpoint's HTTPS and who may use its control interface (docs/operate.md): null
   * without a {@code <tls>} in {@code <metrics>}.
   *
   * @param clientCa what operators' client certificates chain to (null: none asked for)
   * @param operators each operator's name (a client certificate's CN or DNS name) and what they may
   *     do ({@link dev.portcullis.pdp.control.ControlApi#VIEW}, {@code REVOKE})
   */
  public record Control(
      Path certificate, Path key, Path clientCa, Map<String, java.util.Set<String>> operators) {
    public Control {
      operators = Map.copyOf(operators);
    }
  }

  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(PdpConfig.class, "/dev/portcullis/pdp/pdp.xsd");

  /**
   * One served client type.
   *
   * @param linearizable with a fleet store, decide from a synchronous read of shared state rather
   *     than the watch-fed view ({@code consistency="linearizable"}; default {@code cached})
   * @param decisionTimeout how long an asynchronous engine may take over one decision
   */
  public record ClientTypeConfig(
      int code,
      String engine,
      Path policy,
      boolean watch,
      boolean linearizable,
      Duration decisionTimeout) {
    public ClientTypeConfig {
      Objects.requireNonNull(decisionTimeout, "decisionTimeout");
    }

    public ClientTypeConfig(int code, String engine, Path policy, boolean watch) {
      this(code, engine, policy, watch, false, DEFAULT_DECISION_TIMEOUT);
    }
  }

  /**
   * How long an asynchronous engine may take over a decision before the PEP is answered "Unable to
   * process" ({@code decision-timeout} on {@code <client-type>}).
   */
  public static final Duration DEFAULT_DECISION_TIMEOUT =
      Durations.parse(READER.defaultOf("pdp/client-type", "decision-timeout"));

  /** How long SIGTERM lets in-flight work finish ({@code <shutdown drain>}). */
  public static final Duration DEFAULT_DRAIN =
      Durations.parse(READER.defaultOf("pdp/shutdown", "drain"));

  /**
   * A fleet member's load sharing.
   *
   * @param redirectAbove above this many connections, new PEPs are sent to the least-loaded other
   *     member (0: never)
   * @param drain on SIGTERM, how long to send PEPs to other members before stopping
   */
  public record Fleet(int redirectAbove, Duration drain) {
    public static final Fleet DEFAULTS =
        new Fleet(Integer.parseInt(READER.defaultOf("pdp/fleet", "redirect-above")), DEFAULT_DRAIN);
  }

  /** Send PEPs matching {@code pep} (a glob), for a client type or all, to another PDP. */
  public record Redirect(Pattern pep, Integer clientType, InetAddress address, int port) {
    public boolean applies(String pepId, int type) {
      return (clientType == null || clientType == type) && pep.matcher(pepId).matches();
    }
  }

  public PdpConfig {
    clientTypes = Collections.unmodifiableMap(new LinkedHashMap<>(clientTypes));
    redirects = List.copyOf(redirects);
  }

  /** This configuration listening elsewhere (command-line overrides). */
  public PdpConfig withListen(InetAddress a, int p) {
    return new PdpConfig(
        source,
        a,
        p,
        keepAlive,
        accounting,
        handshake,
        maxMessageSize,
        maxHandles,
        maxMessagesPerSecond,
        maxConnections,
        maxPendingDecisions,
        clientTypes,
        redirects,
        audit,
        statsInterval,
        security,
        crypto,
        state,
        fleet,
        metrics,
        drain,
        control);
  }

  /** Reads and validates {@code pdp.xml}. */
  public static PdpConfig load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Path dir = file.toAbsolutePath().getParent();
    // An element left out reads as if it were there and empty: every default is the schema's.
    Element listen = READER.orDefaults(root, "listen");
    InetAddress address = address(listen, "address");
    int port = XmlConfigReader.integer(listen, "port", 0, 0xFFFF);
    Element timers = READER.orDefaults(root, "timers");
    Duration ka = seconds(timers, "keepalive", 0, 0xFFFF);
    Duration acct = seconds(timers, "accounting", 0, 0xFFFF);
    Duration hs = seconds(timers, "handshake", 1, 3600);
    Element limits = READER.orDefaults(root, "limits");
    int maxMsg =
        XmlConfigReader.integer(limits, "max-message-size", 64, CopsCodec.MAX_MESSAGE_SIZE_LIMIT);
    int maxHandles = XmlConfigReader.integer(limits, "max-handles", 1, Integer.MAX_VALUE);
    int rate = XmlConfigReader.integer(limits, "max-messages-per-second", 1, Integer.MAX_VALUE);
    int maxConn = XmlConfigReader.integer(limits, "max-connections", 1, Integer.MAX_VALUE);
    int maxPending = XmlConfigReader.integer(limits, "max-pending-decisions", 1, Integer.MAX_VALUE);
    Map<Integer, ClientTypeConfig> types = new LinkedHashMap<>();
    for (Element ct : children(root, "client-type")) {
      int code = XmlConfigReader.integer(ct, "code", 1, 0xFFFF);
      String engine = attr(ct, "engine", "");
      if (PolicyEngineProvider.named(engine) == null) {
        throw error(
            ct,
            "engine",
            "unknown engine '"
                + engine
                + "' (expected: one of "
                + PolicyEngineProvider.names()
                + ")");
      }
      ClientTypeConfig c =
          new ClientTypeConfig(
              code,
              engine,
              ConfigFiles.existingFile(ct, "policy", dir),
              XmlConfigReader.bool(ct, "watch"),
              XmlConfigReader.value(ct, "consistency").equals("linearizable"),
              between(ct, "decision-timeout", Duration.ofMillis(1), Duration.ofHours(1)));
      if (types.put(code, c) != null) {
        throw error(ct, "code", "client type " + code + " configured twice");
      }
    }
    List<Redirect> redirects = new ArrayList<>();
    for (Element r : children(root, "redirect")) {
      Integer type =
          r.hasAttribute("client-type")
              ? XmlConfigReader.integer(r, "client-type", 1, 0xFFFF)
              : null;
      redirects.add(
          new Redirect(
              Glob.pattern(XmlConfigReader.value(r, "pep")),
              type,
              address(r, "address"),
              XmlConfigReader.integer(r, "port", 1, 0xFFFF)));
    }
    Duration drain =
        between(READER.orDefaults(root, "shutdown"), "drain", Duration.ZERO, Duration.ofHours(1));
    Element audit = child(root, "audit");
    Duration statsEvery = XmlConfigReader.duration(READER.orDefaults(root, "stats"), "interval");
    return new PdpConfig(
        file.toString(),
        address,
        port,
        ka,
        acct,
        hs,
        maxMsg,
        maxHandles,
        rate,
        maxConn,
        maxPending,
        types,
        redirects,
        ConfigFiles.writableFile(audit, "file", dir),
        statsEvery,
        PdpSecurity.parse(child(root, "security"), dir, file.toString()),
        ConfigFiles.existingFile(child(root, "crypto"), "config", dir),
        StateConfig.parse(child(root, "state"), dir),
        fleet(child(root, "fleet"), drain),
        metrics(child(root, "metrics")),
        drain,
        control(child(root, "metrics"), dir));
  }

  /** {@code <metrics>}'s {@code <tls>} and {@code <operator>}s, or null without a {@code <tls>}. */
  static Control control(Element metrics, Path dir) throws ConfigException {
    if (metrics == null) {
      return null;
    }
    Element tls = child(metrics, "tls");
    List<Element> ops = children(metrics, "operator");
    if (tls == null) {
      if (!ops.isEmpty()) {
        throw error(
            ops.get(0),
            "name",
            "an operator is known by the client certificate they present: <metrics> needs"
                + " <tls certificate=... key=... client-ca=...>");
      }
      return null;
    }
    Path clientCa =
        tls.hasAttribute("client-ca") ? ConfigFiles.pemFile(tls, "client-ca", dir) : null;
    Map<String, java.util.Set<String>> operators = new LinkedHashMap<>();
    for (Element o : ops) {
      if (clientCa == null) {
        throw error(
            o,
            "name",
            "an operator is known by the client certificate they present: <tls> needs"
                + " client-ca=, the CA their certificates chain to");
      }
      java.util.Set<String> may = new java.util.TreeSet<>();
      for (String m : attr(o, "may", "").trim().split("\\s+")) {
        if (!dev.portcullis.pdp.control.ControlApi.PERMISSIONS.contains(m)) {
          throw error(
              o,
              "may",
              "may "
                  + m
                  + " (expected: "
                  + String.join(", ", dev.portcullis.pdp.control.ControlApi.PERMISSIONS)
                  + ")");
        }
        may.add(m);
      }
      String name = attr(o, "name", "");
      if (operators.putIfAbsent(name, java.util.Set.copyOf(may)) != null) {
        throw error(o, "name", "operator " + name + " named twice");
      }
    }
    return new Control(
        ConfigFiles.pemFile(tls, "certificate", dir),
        ConfigFiles.pemFile(tls, "key", dir),
        clientCa,
        operators);
  }

  /** Where the metrics and health endpoint listens ({@code <metrics listen=...>}), or null. */
  static InetSocketAddress metrics(Element e) throws ConfigException {
    return e == null ? null : XmlConfigReader.socketAddress(e, "listen", null);
  }

  /** {@code <fleet>}; its {@code drain} defaults to {@code <shutdown drain>}. */
  private static Fleet fleet(Element e, Duration drain) throws ConfigException {
    if (e == null) {
      return null;
    }
    return new Fleet(
        XmlConfigReader.integer(e, "redirect-above", 0, Integer.MAX_VALUE),
        XmlConfigReader.duration(e, "drain", drain));
  }

  /**
   * How long SIGTERM lets this PDP finish: a fleet member's {@code <fleet drain>}, else {@code
   * <shutdown drain>}.
   */
  public Duration drainTime() {
    return fleet == null ? drain : fleet.drain();
  }

  /**
   * Every client type this PDP serves, in number order: those its engines decide ({@link
   * #clientTypes}), enrolment (0xC0A7) when it enrols, tunnels (0xC0A8) when it grants them.
   */
  public List<Integer> servedTypes() {
    java.util.TreeSet<Integer> types = new java.util.TreeSet<>(clientTypes.keySet());
    if (security != null && security.enrolment() != null) {
      types.add(dev.portcullis.cops.access.Enrolment.CLIENT_TYPE);
    }
    if (security != null && security.tunnels() != null) {
      types.add(dev.portcullis.cops.access.TunnelRequest.CLIENT_TYPE);
    }
    return List.copyOf(types);
  }

  /** {@link #fleet}, or the defaults. */
  public Fleet fleetOrDefaults() {
    return fleet == null ? Fleet.DEFAULTS : fleet;
  }

  private static InetAddress address(Element e, String a) throws ConfigException {
    String v = XmlConfigReader.value(e, a);
    if (!v.matches("[0-9a-fA-F:.]+")) {
      throw error(e, a, a + ": " + v + " (expected: a literal IPv4 or IPv6 address)");
    }
    try {
      return InetAddress.getByName(v);
    } catch (UnknownHostException x) {
      throw error(e, a, a + ": " + v + " (expected: a literal IPv4 or IPv6 address)");
    }
  }

  /** A duration attribute from {@code min} to {@code max}, both included. */
  private static Duration between(Element e, String a, Duration min, Duration max)
      throws ConfigException {
    Duration d = XmlConfigReader.duration(e, a);
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw error(e, a, a + ": " + d + " (expected: from " + min + " to " + max + ")");
    }
    return d;
  }

  /** A duration attribute in whole seconds from {@code minS} to {@code maxS}. */
  private static Duration seconds(Element e, String a, long minS, long maxS)
      throws ConfigException {
    Duration d = XmlConfigReader.duration(e, a);
    if (d.getSeconds() < minS || d.getSeconds() > maxS || d.getNano() != 0) {
      throw error(
          e, a, a + ": " + d + " (expected: whole seconds from " + minS + " to " + maxS + ")");
    }
    return d;
  }

  /** What a connection's handlers apply of this configuration. */
  ConnectionLimits connectionLimits() {
    PdpConfig c = this;
    java.util.Map<Integer, java.time.Duration> timeouts = new java.util.HashMap<>();
    for (PdpConfig.ClientTypeConfig t : c.clientTypes().values()) {
      timeouts.put(t.code(), t.decisionTimeout());
    }
    return new ConnectionLimits(
        c.handshake(),
        c.keepAlive(),
        c.accounting(),
        c.maxConnections(),
        c.maxHandles(),
        c.maxPendingDecisions(),
        c.maxMessageSize(),
        c.maxMessagesPerSecond(),
        timeouts,
        PdpConfig.DEFAULT_DECISION_TIMEOUT);
  }
}
