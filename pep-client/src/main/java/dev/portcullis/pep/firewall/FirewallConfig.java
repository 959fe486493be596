package dev.portcullis.pep.firewall;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.netfilter.Flow;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.Prefix;
import dev.portcullis.support.XmlConfigReader;
import java.net.Inet4Address;
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
 * {@code firewall.xml}: the host firewall's PEP, services and subjects (docs/host-firewall.md;
 * reference: docs/reference/firewall.md). Every mistake names the file, line and attribute.
 *
 * @param pep the PEP's own configuration (a pep.xml)
 * @param audit the hash-chained audit log, or null for none
 * @param metrics where the metrics and health endpoint listens ({@code <metrics>}), or null
 */
public record FirewallConfig(
    String source,
    Path pep,
    Path audit,
    InetSocketAddress metrics,
    int queue,
    String table,
    Duration idle,
    int maxFlows,
    boolean closeOnPdpLoss,
    int mark,
    List<HostFirewall.Service> services,
    List<Subject> subjects) {

  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(FirewallConfig.class, "/dev/portcullis/pep/firewall.xsd");

  /**
   * One client address prefix and the subject it names; with a level, the subject's flows are
   * decided under an MLS session at that level and those categories (null: none).
   */
  public record Subject(Prefix source, String name, HostFirewall.SessionLevel session) {}

  /** The subjects with a session, and its level. */
  public java.util.Map<String, HostFirewall.SessionLevel> sessions() {
    java.util.Map<String, HostFirewall.SessionLevel> m = new java.util.HashMap<>();
    for (Subject s : subjects) {
      if (s.session() != null) {
        m.put(s.name(), s.session());
      }
    }
    return m;
  }

  /** The subject a client at {@code address} is, or null when no mapping names it. */
  public String subject(InetAddress address) {
    for (Subject s : subjects) {
      if (s.source().contains(address)) {
        return s.name();
      }
    }
    return null;
  }

  /** The settings {@link HostFirewall#start} takes. */
  public HostFirewall.Settings settings() {
    return new HostFirewall.Settings(
        table, queue, services, this::subject, idle, maxFlows, closeOnPdpLoss, mark, sessions());
  }

  /** Reads and validates {@code firewall.xml}. */
  public static FirewallConfig load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Path dir = file.toAbsolutePath().getParent();
    String table = XmlConfigReader.value(root, "table");
    if (!table.matches("[A-Za-z0-9]{1,20}")) {
      throw error(root, "table", "table " + table + " (expected: 1 to 20 letters or digits)");
    }
    Duration idle = XmlConfigReader.duration(root, "idle");
    if (idle.compareTo(Duration.ofSeconds(1)) < 0 || idle.compareTo(Duration.ofDays(7)) > 0) {
      throw error(root, "idle", "idle: " + idle + " (expected: from 1 s to 7 days)");
    }
    List<HostFirewall.Service> services = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Element s : children(root, "service")) {
      InetSocketAddress a = XmlConfigReader.socketAddress(s, "address", null);
      if (a == null || !(a.getAddress() instanceof Inet4Address v4) || a.getPort() == 0) {
        throw error(
            s,
            "address",
            "address "
                + attr(s, "address", "")
                + " (expected: an IPv4 address and a port, e.g."
                + " 192.0.2.10:22; IPv6 is still to come)");
      }
      int protocol = XmlConfigReader.value(s, "protocol").equals("udp") ? Flow.UDP : Flow.TCP;
      if (!seen.add(protocol + " " + a)) {
        throw error(
            s,
            "address",
            "address "
                + attr(s, "address", "")
                + " listed twice for "
                + XmlConfigReader.value(s, "protocol"));
      }
      String access = XmlConfigReader.value(s, "access");
      services.add(
          new HostFirewall.Service(
              attr(s, "name", ""),
              v4,
              a.getPort(),
              protocol,
              access.equals("read")
                  ? AccessMode.READ
                  : access.equals("write") ? AccessMode.WRITE : AccessMode.READ_WRITE));
    }
    List<Subject> subjects = new ArrayList<>();
    java.util.Map<String, HostFirewall.SessionLevel> levels = new java.util.HashMap<>();
    for (Element s : children(root, "subject")) {
      String name = attr(s, "name", "");
      if (name.isBlank()) {
        throw error(s, "name", "empty subject name");
      }
      HostFirewall.SessionLevel session = null;
      if (!attr(s, "level", "").isEmpty()) {
        String categories = attr(s, "categories", "").strip();
        session =
            new HostFirewall.SessionLevel(
                XmlConfigReader.integer(s, "level", 0, 0xffff),
                categories.isEmpty() ? List.of() : List.of(categories.split("\\s+")));
      } else if (!attr(s, "categories", "").isEmpty()) {
        throw error(s, "categories", "categories without a level (the session's level is needed)");
      }
      // one session per subject at a time (as in MYSEA): every mapping of a subject says the same
      if (levels.containsKey(name) && !java.util.Objects.equals(levels.get(name), session)) {
        throw error(
            s,
            "level",
            "subject "
                + name
                + " mapped again with another session level (one session per subject)");
      }
      levels.put(name, session);
      try {
        subjects.add(new Subject(Prefix.parse(attr(s, "source", "")), name, session));
      } catch (IllegalArgumentException e) {
        throw error(s, "source", e.getMessage() + " (expected: e.g. 10.0.0.0/8)");
      }
    }
    String markText = XmlConfigReader.value(root, "mark");
    long mark =
        Long.parseLong(markText.substring(2), 16); // the schema's pattern: 0x and 1-8 digits
    if (Long.bitCount(mark) != 1) {
      throw error(
          root, "mark", "mark " + markText + " (expected: exactly one bit set, e.g. 0x00100000)");
    }
    Element audit = XmlConfigReader.child(root, "audit");
    return new FirewallConfig(
        file.toString(),
        ConfigFiles.existingFile(root, "pep", dir),
        audit == null ? null : ConfigFiles.writableFile(audit, "file", dir),
        XmlConfigReader.child(root, "metrics") == null
            ? null
            : XmlConfigReader.socketAddress(XmlConfigReader.child(root, "metrics"), "listen", null),
        XmlConfigReader.integer(root, "queue", 0, 0xffff),
        table,
        idle,
        XmlConfigReader.integer(root, "max-flows", 1, 16_777_216),
        XmlConfigReader.value(root, "on-pdp-loss").equals("close-all"),
        (int) mark,
        List.copyOf(services),
        List.copyOf(subjects));
  }
}
