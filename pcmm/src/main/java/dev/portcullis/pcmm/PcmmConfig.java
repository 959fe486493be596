package dev.portcullis.pcmm;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.state.StateConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.XmlConfigReader;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * The policy server's configuration ({@code pcmm.xml}, schema {@code pcmm.xsd}): its CMTSs, how it
 * keeps their connections, the policy that decides gates, the audit, and the HTTP endpoint with the
 * application managers allowed on it. Reference: docs/pcmm.md, docs/reference/pcmm.md.
 *
 * @param cmtss each CMTS's name and address, in the file's order
 * @param policy the engine and its file, or null for none
 * @param limits the per-subscriber limits, or null for none (at least one of the two is there)
 * @param audit the audit log, or null for none
 * @param http where the operator endpoint listens, or null for none
 * @param httpTls the endpoint's TLS, or null for plain HTTP (on loopback, or said insecure)
 * @param state the store a fleet shares, or null for none
 * @param fleet this server as a fleet member, or null for a lone server
 */
public record PcmmConfig(
    String source,
    Map<String, InetSocketAddress> cmtss,
    PolicyServer.Settings settings,
    Policy policy,
    Limits limits,
    Path audit,
    InetSocketAddress http,
    HttpTls httpTls,
    List<ApplicationManager> applicationManagers,
    StateConfig state,
    Fleet fleet) {
  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(PcmmConfig.class, "/dev/portcullis/pcmm/pcmm.xsd");

  /** A CMTS's or a member's name: it is a path segment in the fleet's store. */
  private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";

  private static final String NAME_EXPECTED =
      "1 to 64 of A-Z a-z 0-9 . _ -, beginning with a letter or digit";

  /** {@code <policy>}: a policy engine by name and its file. */
  public record Policy(String engine, Path file) {}

  /** {@code <fleet>}: this member's name, and how long it leaves a free CMTS to the first. */
  public record Fleet(String member, Duration claimDelay) {}

  /** {@code <limits>}. */
  public record Limits(int gatesPerSubscriber, Set<String> serviceClasses) {}

  /**
   * {@code <application-manager>}: who may ask for gates over HTTP, as which AMID.
   *
   * @param tokenDigest the SHA-256 of its bearer token (the token itself is not kept)
   */
  public record ApplicationManager(
      String name, PcmmObject.Amid amid, byte[] tokenDigest, String clientName) {}

  /**
   * {@code <http><tls>}: the endpoint's certificate chain and key (PEM), and the CA (PEM) whose
   * client certificates it verifies, or null when it asks for none.
   */
  public record HttpTls(Path certificate, Path key, Path clientCa) {}

  /** Reads and validates {@code pcmm.xml}; every mistake names the file, line and attribute. */
  public static PcmmConfig load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Path dir = file.toAbsolutePath().getParent();
    Map<String, InetSocketAddress> cmtss = new LinkedHashMap<>();
    Set<InetSocketAddress> addresses = new HashSet<>();
    for (Element c : children(root, "cmts")) {
      String name = attr(c, "name", "").trim();
      if (!name.matches(NAME)) {
        throw error(c, "name", "CMTS name \"" + name + "\" (expected: " + NAME_EXPECTED + ")");
      }
      if (cmtss.containsKey(name)) {
        throw error(c, "name", "CMTS " + name + " defined twice");
      }
      InetSocketAddress a = XmlConfigReader.socketAddress(c, "address", PcmmCops.CMTS_PORT);
      if (a.getPort() == 0) {
        throw error(c, "address", "CMTS " + name + ": port 0 (expected: the CMTS's port, 3918)");
      }
      if (!addresses.add(a)) {
        throw error(c, "address", "CMTS " + name + ": address " + a + " given to another CMTS");
      }
      cmtss.put(name, a);
    }
    Element policyElement = XmlConfigReader.child(root, "policy");
    Element limitsElement = XmlConfigReader.child(root, "limits");
    if (policyElement == null && limitsElement == null) {
      throw error(
          root,
          null,
          "neither <policy> nor <limits>: every gate would be allowed (expected: at least one)");
    }
    Element http = XmlConfigReader.child(root, "http");
    Element state = XmlConfigReader.child(root, "state");
    Element fleet = XmlConfigReader.child(root, "fleet");
    if ((state == null) != (fleet == null)) {
      throw error(
          state != null ? state : fleet,
          null,
          state != null
              ? "<state> without <fleet> (expected both: the store is the fleet's)"
              : "<fleet> without <state> (expected both: the fleet shares its CMTSs through it)");
    }
    return new PcmmConfig(
        file.toString(),
        Collections.unmodifiableMap(cmtss),
        settings(READER.orDefaults(root, "connections")),
        policyElement == null
            ? null
            : new Policy(
                XmlConfigReader.value(policyElement, "engine"),
                ConfigFiles.existingFile(policyElement, "file", dir)),
        limitsElement == null ? null : limits(limitsElement),
        ConfigFiles.writableFile(XmlConfigReader.child(root, "audit"), "file", dir),
        http == null ? null : XmlConfigReader.socketAddress(http, "listen", null),
        http == null ? null : httpTls(http, dir),
        http == null ? List.of() : managers(http, dir),
        StateConfig.parse(state, dir),
        fleet == null ? null : fleet(fleet));
  }

  private static Fleet fleet(Element f) throws ConfigException {
    String member = attr(f, "member", "").trim();
    if (!member.matches(NAME)) {
      throw error(f, "member", "member \"" + member + "\" (expected: " + NAME_EXPECTED + ")");
    }
    Duration d = XmlConfigReader.duration(f, "claim-delay");
    if (d.compareTo(Duration.ofMinutes(1)) > 0) {
      throw error(f, "claim-delay", "claim-delay: " + d + " (expected: PT0S to PT1M)");
    }
    return new Fleet(member, d);
  }

  private static PolicyServer.Settings settings(Element c) throws ConfigException {
    Duration answer = XmlConfigReader.duration(c, "answer-timeout");
    if (answer.compareTo(Duration.ofMillis(10)) < 0
        || answer.compareTo(Duration.ofSeconds(60)) > 0) {
      throw error(
          c, "answer-timeout", "answer-timeout: " + answer + " (expected: PT0.01S to PT60S)");
    }
    Duration min = XmlConfigReader.duration(c, "reconnect-min");
    Duration max = XmlConfigReader.duration(c, "reconnect-max");
    if (min.isZero()) {
      throw error(c, "reconnect-min", "reconnect-min: 0 (expected: more than 0, e.g. 100ms)");
    }
    if (max.compareTo(min) < 0) {
      throw error(
          c, "reconnect-max", "reconnect-max " + max + " is less than reconnect-min " + min);
    }
    return new PolicyServer.Settings(
        XmlConfigReader.integer(c, "ka-timer", 1, 0xFFFF),
        answer,
        min,
        max,
        (int) Long.parseLong(XmlConfigReader.value(c, "psid").trim()));
  }

  private static Limits limits(Element l) throws ConfigException {
    Set<String> classes = new LinkedHashSet<>();
    for (String n : XmlConfigReader.value(l, "service-classes").trim().split("\\s+")) {
      if (n.isEmpty()) {
        continue;
      }
      if (n.length() > 15 || !n.chars().allMatch(ch -> ch > 0x20 && ch < 0x7F)) {
        throw error(
            l,
            "service-classes",
            "service class \"" + n + "\" (expected: 1 to 15 printable ASCII characters)");
      }
      classes.add(n);
    }
    return new Limits(
        XmlConfigReader.integer(l, "gates-per-subscriber", 1, 0xFFFF), Set.copyOf(classes));
  }

  /**
   * The endpoint's TLS, or null for plain HTTP, which carries bearer tokens in clear: allowed only
   * on a loopback address, or where the operator says {@code insecure="true"}.
   */
  private static HttpTls httpTls(Element http, Path dir) throws ConfigException {
    Element tls = XmlConfigReader.child(http, "tls");
    HttpTls t = null;
    if (tls == null) {
      InetSocketAddress listen = XmlConfigReader.socketAddress(http, "listen", null);
      if (!children(http, "application-manager").isEmpty()
          && !listen.getAddress().isLoopbackAddress()
          && !Boolean.parseBoolean(XmlConfigReader.value(http, "insecure"))) {
        throw error(
            http,
            "listen",
            "/gates on "
                + HostPort.of(listen)
                + " over plain HTTP would carry the application managers' bearer tokens in clear"
                + " (expected: a loopback address, a <tls> element, or insecure=\"true\" where the"
                + " network is trusted)");
      }
    } else {
      String ca = attr(tls, "client-ca", "").trim();
      t =
          new HttpTls(
              ConfigFiles.pemFile(tls, "certificate", dir),
              ConfigFiles.pemFile(tls, "key", dir),
              ca.isEmpty() ? null : ConfigFiles.pemFile(tls, "client-ca", dir));
    }
    if (t == null || t.clientCa() == null) {
      for (Element m : children(http, "application-manager")) {
        if (!attr(m, "client-name", "").isBlank()) {
          throw error(
              m, "client-name", "a client certificate name without <tls client-ca> to verify it");
        }
      }
    }
    return t;
  }

  private static List<ApplicationManager> managers(Element http, Path dir) throws ConfigException {
    Set<String> names = new HashSet<>();
    Set<Integer> tags = new HashSet<>();
    List<ApplicationManager> out = new ArrayList<>();
    for (Element m : children(http, "application-manager")) {
      String name = attr(m, "name", "").trim();
      if (name.isEmpty() || !names.add(name)) {
        throw error(
            m,
            "name",
            name.isEmpty() ? "empty name" : "application manager " + name + " defined twice");
      }
      int type = XmlConfigReader.integer(m, "app-type", 0, 0, 0xFFFF);
      int tag = XmlConfigReader.integer(m, "am-tag", 0, 0, 0xFFFF);
      if (!tags.add(tag)) {
        throw error(
            m, "am-tag", "application manager " + name + ": am-tag " + tag + " given to another");
      }
      out.add(
          new ApplicationManager(
              name,
              new PcmmObject.Amid(type, tag),
              BearerTokens.digest(m, dir),
              attr(m, "client-name", "").isBlank() ? null : attr(m, "client-name", "").trim()));
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return "PcmmConfig[" + source + ", CMTSs " + cmtss.keySet() + "]";
  }
}
