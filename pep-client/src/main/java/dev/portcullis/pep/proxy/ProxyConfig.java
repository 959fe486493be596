package dev.portcullis.pep.proxy;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.Durations;
import dev.portcullis.support.Prefix;
import dev.portcullis.support.XmlConfigReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * The proxy's configuration ({@code pep-proxy.xml}): the PEP it is (a {@code pep.xml}) and its
 * listeners, each in front of one upstream service. Reference: docs/pep-proxy.md.
 *
 * @param pep the PEP's own configuration file
 * @param audit the audit file, or null for none
 * @param metrics where the metrics and health endpoint listens ({@code <metrics>}), or null
 * @param drain on SIGTERM, how long open connections may go on before they are cut ({@code
 *     <shutdown drain>}, default 10 s)
 */
public record ProxyConfig(
    String source,
    Path pep,
    Path audit,
    List<Listener> listeners,
    InetSocketAddress metrics,
    Duration drain) {
  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(ProxyConfig.class, "/dev/portcullis/pep/pep-proxy.xsd");

  /**
   * How long SIGTERM lets open connections go on when {@code <shutdown drain>} does not say: the
   * schema's default.
   */
  public static final Duration DEFAULT_DRAIN =
      Durations.parse(READER.defaultOf("pep-proxy/shutdown", "drain"));

  /** TLS termination: this listener's certificate and key, and the CA its clients' are from. */
  public record Tls(Path certificate, Path key, Path trust) {}

  /**
   * The MLS session the proxy carries for each certificate subject on a listener.
   *
   * @param level the session level (the rank in the PDP's multilevel policy)
   * @param move a subject whose session is at another level moves here (CHANGE_LEVEL) rather than
   *     being refused
   */
  public record Session(int level, List<String> categories, boolean move) {}

  /** One client address prefix and the subject it names. */
  public record SubjectMapping(Prefix source, String name) {}

  /**
   * One listener.
   *
   * @param closeOnPdpLoss without a PDP, close open connections too (not only refuse new ones)
   * @param tls TLS termination with client certificates (the subject is the certificate's CN), or
   *     null for plain TCP (the subject from the address mappings)
   * @param upstreamTrust TLS to the upstream, whose certificate this CA must have issued for its
   *     address; null for plain TCP to the upstream
   * @param maxConnections connections open at once on this listener (deciding or proxied)
   * @param session the MLS session carried for certificate subjects, or null
   * @param idleTimeout a side with no read and no progress writing for this long is closed
   * @param connectWithRequest connect upstream while the decision is pending, not after the Install
   * @param reuseGrants while the PDP is there too, admit a subject holding a grant with a validity
   *     on this listener at once, on that grant (its request state kept installed until it ends)
   */
  public record Listener(
      String name,
      InetSocketAddress listen,
      InetSocketAddress upstream,
      String service,
      AccessMode access,
      boolean closeOnPdpLoss,
      List<SubjectMapping> subjects,
      Tls tls,
      Path upstreamTrust,
      int maxConnections,
      Session session,
      Duration idleTimeout,
      boolean connectWithRequest,
      boolean reuseGrants) {

    /** The subject a client at {@code address} is, or null when no mapping names it. */
    public String subject(InetAddress address) {
      for (SubjectMapping m : subjects) {
        if (m.source().contains(address)) {
          return m.name();
        }
      }
      return null;
    }
  }

  /** Reads and validates {@code pep-proxy.xml}. */
  public static ProxyConfig load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Path dir = file.toAbsolutePath().getParent();
    Path pep = ConfigFiles.existingFile(root, "pep", dir);
    List<Listener> listeners = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<InetSocketAddress> bound = new HashSet<>();
    for (Element l : children(root, "listener")) {
      String name = attr(l, "name", "");
      if (!names.add(name)) {
        throw error(l, "name", "listener " + name + " defined twice");
      }
      InetSocketAddress listen = address(l, "listen");
      if (listen.getPort() != 0 && !bound.add(listen)) {
        throw error(l, "listen", "address " + attr(l, "listen", "") + " used by two listeners");
      }
      List<SubjectMapping> subjects = new ArrayList<>();
      for (Element s : children(l, "subject")) {
        try {
          subjects.add(
              new SubjectMapping(Prefix.parse(attr(s, "source", "")), attr(s, "name", "")));
        } catch (IllegalArgumentException e) {
          throw error(s, "source", e.getMessage() + " (expected: e.g. 10.0.0.0/8)");
        }
        if (attr(s, "name", "").isBlank()) {
          throw error(s, "name", "empty subject name");
        }
      }
      String access = XmlConfigReader.value(l, "access");
      Element tls = XmlConfigReader.child(l, "tls");
      Element session = XmlConfigReader.child(l, "session");
      boolean reuseGrants = XmlConfigReader.value(l, "grants").equals("reuse");
      if (session != null && reuseGrants) {
        throw error(
            l,
            "grants",
            "listener "
                + name
                + ": grants=\"reuse\" with a <session>: a session's level is decided per"
                + " connection, so its connections cannot be admitted on an earlier grant");
      }
      if (session != null && tls == null) {
        throw error(
            session,
            "level",
            "listener "
                + name
                + ": <session> needs <tls>: the proxy carries sessions only for subjects that"
                + " authenticate with a certificate");
      }
      listeners.add(
          new Listener(
              name,
              listen,
              address(l, "upstream"),
              attr(l, "service", ""),
              access.equals("read")
                  ? AccessMode.READ
                  : access.equals("write") ? AccessMode.WRITE : AccessMode.READ_WRITE,
              XmlConfigReader.value(l, "on-pdp-loss").equals("close-all"),
              List.copyOf(subjects),
              tls(tls, dir),
              l.hasAttribute("upstream-trust")
                  ? ConfigFiles.existingFile(l, "upstream-trust", dir)
                  : null,
              XmlConfigReader.integer(l, "max-connections", 1, 1_000_000),
              session == null
                  ? null
                  : new Session(
                      XmlConfigReader.integer(session, "level", 0, 0, 255),
                      List.of(attr(session, "categories", "").trim().split("\\s+")).stream()
                          .filter(c -> !c.isEmpty())
                          .toList(),
                      XmlConfigReader.value(session, "on-other-level").equals("move")),
              XmlConfigReader.duration(l, "idle-timeout"),
              XmlConfigReader.value(l, "upstream-connect").equals("with-request"),
              reuseGrants));
    }
    Element audit = XmlConfigReader.child(root, "audit");
    return new ProxyConfig(
        file.toString(),
        pep,
        ConfigFiles.writableFile(audit, "file", dir),
        List.copyOf(listeners),
        XmlConfigReader.child(root, "metrics") == null
            ? null
            : XmlConfigReader.socketAddress(XmlConfigReader.child(root, "metrics"), "listen", null),
        drain(READER.orDefaults(root, "shutdown")));
  }

  /** {@code <shutdown drain>}: 0 to 1 h. */
  private static Duration drain(Element shutdown) throws ConfigException {
    Duration d = XmlConfigReader.duration(shutdown, "drain");
    if (d.isNegative() || d.compareTo(Duration.ofHours(1)) > 0) {
      throw XmlConfigReader.error(
          shutdown, "drain", "drain: " + d + " (expected: from PT0S to PT1H)");
    }
    return d;
  }

  private static Tls tls(Element t, Path dir) throws ConfigException {
    if (t == null) {
      return null;
    }
    return new Tls(
        ConfigFiles.existingFile(t, "certificate", dir),
        ConfigFiles.existingFile(t, "key", dir),
        ConfigFiles.existingFile(t, "trust", dir));
  }

  /** {@code host:port} with a literal address (no name lookup at load), IPv6 in brackets. */
  private static InetSocketAddress address(Element e, String a) throws ConfigException {
    InetSocketAddress s = XmlConfigReader.socketAddress(e, a, null);
    if (s == null) {
      throw error(e, a, a + " (expected: a literal address and a port, e.g. 127.0.0.1:8080)");
    }
    return s;
  }
}
