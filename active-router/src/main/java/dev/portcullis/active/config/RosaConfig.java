package dev.portcullis.active.config;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.state.StateConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Numbers;
import dev.portcullis.support.Prefix;
import dev.portcullis.support.XmlConfigReader;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * One active-network domain, read from {@code rosa.xml}: every component (Authorization Server,
 * Code Server, routers, Source) reads the same file and takes its part. Immutable once read.
 */
public record RosaConfig(
    Path source,
    Path pkiDirectory,
    Path cryptoConfig,
    AuthServer authServer,
    CodeServer codeServer,
    Map<String, Code> codes,
    Map<String, User> users,
    List<Rule> rules,
    Map<String, Router> routers,
    StateConfig state,
    Map<String, InetSocketAddress> metrics) {

  /** The key of the Authorization Server's metrics endpoint in {@link #metrics}. */
  public static final String AUTH_SERVER = "auth-server";

  /** The key of the Code Server's metrics endpoint in {@link #metrics}. */
  public static final String CODE_SERVER = "code-server";

  /**
   * Where a component's metrics and health endpoint listens ({@code metrics="ADDRESS:PORT"} on its
   * element), or null: {@link #AUTH_SERVER}, {@link #CODE_SERVER} or a router's id.
   */
  public InetSocketAddress metricsOf(String component) {
    return metrics.get(component);
  }

  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(RosaConfig.class, "/dev/portcullis/active/rosa.xsd");

  public record AuthServer(
      InetSocketAddress listen, Duration rotation, int epochsKept, Duration requestSkew) {
    /** The longest session the kept epochs can carry. */
    public Duration longestSession() {
      return rotation.multipliedBy(epochsKept - 1);
    }
  }

  public record CodeServer(InetSocketAddress listen) {}

  public record Code(int id, String name, String className, Map<String, String> settings) {}

  public record User(String name, long id) {}

  public enum Encryption {
    ALLOWED,
    REQUIRED,
    FORBIDDEN
  }

  /** An authorization rule; {@code line} is where it stands in the file, for audit and errors. */
  public record Rule(
      String user,
      String code,
      Prefix source,
      Prefix destination,
      Duration maxDuration,
      Set<MacAlgorithm> macs,
      Encryption encryption,
      int line) {}

  public record Route(Prefix destination, InetSocketAddress nextHop) {}

  public record Router(
      String id,
      InetSocketAddress listen,
      Set<String> codes,
      Duration clockSkew,
      boolean legacyMacs,
      boolean verify,
      long maxSessions,
      List<Route> routes) {}

  /** Reads, validates and cross-checks a file; errors name the file, line and attribute. */
  public static RosaConfig load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Path dir = file.toAbsolutePath().getParent();
    String src = file.toString();
    Path pki = dir.resolve(attr(child(root, "pki"), "directory", null)).normalize();
    if (Files.exists(pki) && !Files.isDirectory(pki)) {
      throw error(child(root, "pki"), "directory", "directory " + pki + " is a file");
    }
    Path crypto = ConfigFiles.existingFile(child(root, "crypto"), "config", dir);

    Element as = child(root, "auth-server");
    Duration rotation = XmlConfigReader.duration(as, "rotation");
    if (rotation.compareTo(Duration.ofSeconds(1)) < 0) {
      throw error(as, "rotation", "must be at least 1 second, not " + rotation);
    }
    int kept = XmlConfigReader.integer(as, "epochs-kept", 2, 1000);
    AuthServer auth =
        new AuthServer(
            address(as, "listen"), rotation, kept, XmlConfigReader.duration(as, "request-skew"));
    CodeServer cs = new CodeServer(address(child(root, "code-server"), "listen"));
    Map<String, InetSocketAddress> metrics = new LinkedHashMap<>();
    metric(metrics, AUTH_SERVER, as);
    metric(metrics, CODE_SERVER, child(root, "code-server"));

    Map<String, Code> codes = new LinkedHashMap<>();
    Set<Integer> codeIds = new HashSet<>();
    for (Element c : children(root, "code")) {
      String name = attr(c, "name", null);
      int id;
      try {
        id = Numbers.unsigned32(attr(c, "id", null), "id");
      } catch (IllegalArgumentException x) {
        throw error(c, "id", x.getMessage());
      }
      if (codes.containsKey(name)) {
        throw error(c, "name", "code '" + name + "' is defined twice");
      }
      if (!codeIds.add(id)) {
        throw error(c, "id", "code id " + Integer.toUnsignedString(id) + " is used twice");
      }
      Map<String, String> settings = new LinkedHashMap<>();
      for (Element s : children(c, "setting")) {
        settings.put(attr(s, "name", null), attr(s, "value", null));
      }
      codes.put(name, new Code(id, name, serviceClass(c), Map.copyOf(settings)));
    }

    Map<String, User> users = new LinkedHashMap<>();
    Set<Long> userIds = new HashSet<>();
    for (Element u : children(root, "user")) {
      String name = attr(u, "name", null);
      long id = Long.parseUnsignedLong(attr(u, "id", null));
      if (users.containsKey(name)) {
        throw error(u, "name", "user '" + name + "' is defined twice");
      }
      if (!userIds.add(id)) {
        throw error(u, "id", "user id " + Long.toUnsignedString(id) + " is used twice");
      }
      users.put(name, new User(name, id));
    }

    List<Rule> rules = new ArrayList<>();
    for (Element r : children(root, "allow")) {
      String user = attr(r, "user", null);
      String code = attr(r, "code", null);
      if (!user.equals("*") && !users.containsKey(user)) {
        throw error(r, "user", "no user '" + user + "' is defined");
      }
      if (!code.equals("*") && !codes.containsKey(code)) {
        throw error(r, "code", "no code '" + code + "' is defined");
      }
      Duration max = XmlConfigReader.duration(r, "max-duration");
      if (max.compareTo(auth.longestSession()) > 0) {
        throw error(
            r,
            "max-duration",
            max
                + " is longer than the "
                + auth.longestSession()
                + " that epochs-kept x rotation lets a session live");
      }
      Set<MacAlgorithm> macs = EnumSet.noneOf(MacAlgorithm.class);
      for (String m : XmlConfigReader.value(r, "macs").trim().split("\\s+")) {
        try {
          macs.add(MacAlgorithm.ofLabel(m));
        } catch (IllegalArgumentException e) {
          throw error(r, "macs", e.getMessage());
        }
      }
      rules.add(
          new Rule(
              user,
              code,
              prefix(r, "source"),
              prefix(r, "destination"),
              max,
              Collections.unmodifiableSet(macs),
              Encryption.valueOf(XmlConfigReader.value(r, "encryption").toUpperCase(Locale.ROOT)),
              XmlConfigReader.line(r)));
    }

    Map<String, Router> routers = new LinkedHashMap<>();
    for (Element r : children(root, "router")) {
      String id = attr(r, "id", null);
      if (routers.containsKey(id)) {
        throw error(r, "id", "router '" + id + "' is defined twice");
      }
      metric(metrics, id, r);
      Set<String> allowed = new LinkedHashSet<>();
      for (String c : attr(r, "codes", "").trim().split("\\s+")) {
        if (!codes.containsKey(c)) {
          throw error(r, "codes", "no code '" + c + "' is defined");
        }
        allowed.add(c);
      }
      List<Route> routes = new ArrayList<>();
      for (Element rt : children(r, "route")) {
        routes.add(new Route(prefix(rt, "destination"), address(rt, "next-hop")));
      }
      long maxSessions = Long.parseLong(XmlConfigReader.value(r, "max-sessions"));
      if (maxSessions < 1) {
        throw error(r, "max-sessions", "must be at least 1");
      }
      routers.put(
          id,
          new Router(
              id,
              address(r, "listen"),
              Collections.unmodifiableSet(allowed),
              XmlConfigReader.duration(r, "clock-skew"),
              XmlConfigReader.bool(r, "legacy-macs"),
              XmlConfigReader.bool(r, "verify"),
              maxSessions,
              List.copyOf(routes)));
    }
    return new RosaConfig(
        Path.of(src),
        pki,
        crypto,
        auth,
        cs,
        Collections.unmodifiableMap(codes),
        Collections.unmodifiableMap(users),
        List.copyOf(rules),
        Collections.unmodifiableMap(routers),
        StateConfig.parse(child(root, "state"), dir),
        Collections.unmodifiableMap(metrics));
  }

  private static void metric(Map<String, InetSocketAddress> m, String component, Element e)
      throws ConfigException {
    InetSocketAddress a = XmlConfigReader.socketAddress(e, "metrics", null);
    if (a != null) {
      m.put(component, a);
    }
  }

  private static Prefix prefix(Element e, String name) throws ConfigException {
    try {
      return Prefix.parse(attr(e, name, "0.0.0.0/0"));
    } catch (IllegalArgumentException x) {
      throw error(e, name, x.getMessage());
    }
  }

  private static InetSocketAddress address(Element e, String name) throws ConfigException {
    try {
      InetSocketAddress u = HostPort.parse(attr(e, name, null));
      return new InetSocketAddress(u.getHostString(), u.getPort());
    } catch (IllegalArgumentException x) {
      throw error(e, name, name + " " + x.getMessage());
    }
  }

  /** The code with this id, or null. */
  public Code code(int id) {
    for (Code c : codes.values()) {
      if (c.id() == id) {
        return c;
      }
    }
    return null;
  }

  /** The user with this name, or null. */
  public User user(String name) {
    return users.get(name);
  }

  /**
   * The router with this id.
   *
   * @throws IllegalArgumentException "no such router", naming the file and the routers it has
   */
  public Router router(String id) {
    Router r = routers.get(id);
    if (r == null) {
      throw new IllegalArgumentException(
          "no such router '"
              + id
              + "' in "
              + source()
              + " (routers: "
              + String.join(", ", routers.keySet())
              + ")");
    }
    return r;
  }

  /** The PKI's client identities: routers, users, and the Authorization Server. */
  public List<String> clientIdentities() {
    List<String> ids = new ArrayList<>(routers.keySet());
    ids.addAll(users.keySet());
    ids.add(AUTH_SERVER_IDENTITY);
    return ids;
  }

  /** The client-certificate name the Authorization Server presents to the Code Server. */
  public static final String AUTH_SERVER_IDENTITY = "auth-server";

  /**
   * A code's {@code class}, checked at load: it must be on the class path and implement {@link
   * ActiveService} (a class that is not there used to be accepted, and the router ran without it).
   */
  private static String serviceClass(Element c) throws ConfigException {
    String name = attr(c, "class", null);
    if (name == null) {
      return null;
    }
    Class<?> k;
    try {
      k = Class.forName(name, false, RosaConfig.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw error(c, "class", "class " + name + " is not on the class path");
    }
    if (!ActiveService.class.isAssignableFrom(k)) {
      throw error(
          c, "class", "class " + name + " does not implement " + ActiveService.class.getName());
    }
    return name;
  }
}
