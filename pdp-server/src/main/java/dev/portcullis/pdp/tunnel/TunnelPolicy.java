package dev.portcullis.pdp.tunnel;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelRequest.Objective;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.XmlConfigReader;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.w3c.dom.Element;

/**
 * Who may have a tunnel to which gateway, at which protection objectives, for how long
 * (docs/tunnels.md, "The tunnel policy"): the gateways, each with its address, IKE identity and the
 * network behind it, and the rules that allow tunnels, the first that matches deciding. No rule: no
 * tunnel. Immutable; checked at load with file:line errors.
 */
public final class TunnelPolicy {
  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(TunnelPolicy.class, "/dev/portcullis/pdp/policy-tunnels.xsd");

  /** The longest lifetime a rule may give: a tunnel is decided again at least this often. */
  static final Duration MAX_LIFETIME = Duration.ofDays(1);

  /** A gateway tunnels end at. */
  public record Gateway(String name, InetAddress address, String ikeId, TrafficSelector network) {}

  /** A rule allowing tunnels. */
  record Allow(
      String id,
      List<Pattern> subjects,
      String gateway,
      Set<Objective> objectives,
      Duration lifetime,
      int maxTunnels,
      boolean mlsSession,
      String confidentialFrom) {
    boolean matches(String subject, String gw) {
      if (!gateway.equals(gw)) {
        return false;
      }
      for (Pattern p : subjects) {
        if (p.matcher(subject).matches()) {
          return true;
        }
      }
      return false;
    }
  }

  private final Map<String, Gateway> gateways;
  private final List<Allow> rules;
  private final String source;

  private TunnelPolicy(Map<String, Gateway> gateways, List<Allow> rules, String source) {
    this.gateways = gateways;
    this.rules = rules;
    this.source = source;
  }

  /** Reads and checks a tunnel policy file. */
  public static TunnelPolicy load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Map<String, Gateway> gateways = new LinkedHashMap<>();
    for (Element g : children(root, "gateway")) {
      String name = attr(g, "name", "");
      InetAddress address = literal(g, "address");
      TrafficSelector network;
      try {
        network = TrafficSelector.parse(attr(g, "network", ""));
      } catch (IllegalArgumentException e) {
        throw error(g, "network", e.getMessage());
      }
      if (gateways.putIfAbsent(name, new Gateway(name, address, attr(g, "ike-id", ""), network))
          != null) {
        throw error(g, "name", "gateway " + name + " defined twice");
      }
    }
    List<Allow> rules = new ArrayList<>();
    Set<String> ids = new java.util.HashSet<>();
    for (Element a : children(root, "allow")) {
      String id = attr(a, "id", "");
      if (!ids.add(id)) {
        throw error(a, "id", "rule id " + id + " used twice (expected: unique ids)");
      }
      String gw = attr(a, "gateway", "");
      if (!gateways.containsKey(gw)) {
        throw error(
            a,
            "gateway",
            "no gateway " + gw + " is defined (expected: one of " + gateways.keySet() + ")");
      }
      Set<Objective> objectives = EnumSet.noneOf(Objective.class);
      for (String o : attr(a, "objectives", "").trim().split("\\s+")) {
        switch (o.toLowerCase(Locale.ROOT)) {
          case "integrity" -> objectives.add(Objective.INTEGRITY);
          case "confidentiality" -> objectives.add(Objective.CONFIDENTIALITY);
          default ->
              throw error(
                  a,
                  "objectives",
                  "objective "
                      + o
                      + " (expected: integrity, confidentiality; none and ah+esp"
                      + " make no tunnel)");
        }
      }
      Duration lifetime = XmlConfigReader.duration(a, "lifetime", null);
      if (lifetime.isNegative() || lifetime.isZero() || lifetime.compareTo(MAX_LIFETIME) > 0) {
        throw error(
            a, "lifetime", "lifetime " + lifetime + " (expected: more than 0, at most 24h)");
      }
      List<Pattern> subjects = new ArrayList<>();
      for (String s : attr(a, "subject", "").trim().split("\\s+")) {
        subjects.add(PdpConfig.glob(s));
      }
      boolean mls = XmlConfigReader.bool(a, "mls-session");
      String confidentialFrom =
          a.hasAttribute("confidential-from") ? attr(a, "confidential-from", "") : null;
      if (confidentialFrom != null && !mls) {
        throw error(
            a,
            "confidential-from",
            "confidential-from names a session level: it needs mls-session=\"true\"");
      }
      int max = XmlConfigReader.integer(a, "max-tunnels", 1, 100_000);
      rules.add(new Allow(id, subjects, gw, objectives, lifetime, max, mls, confidentialFrom));
    }
    return new TunnelPolicy(Map.copyOf(gateways), List.copyOf(rules), file.toString());
  }

  private static InetAddress literal(Element e, String name) throws ConfigException {
    String v = attr(e, name, "").trim();
    if (!v.matches("[0-9a-fA-F:.]+")) {
      throw error(e, name, name + " " + v + " (expected: a literal IPv4 or IPv6 address)");
    }
    try {
      return InetAddress.getByName(v);
    } catch (UnknownHostException ex) {
      throw error(e, name, name + " " + v + " (expected: a literal IPv4 or IPv6 address)");
    }
  }

  /** The gateway named {@code name}, or null. */
  public Gateway gateway(String name) {
    return gateways.get(name);
  }

  /** Whether a rule asks for multilevel sessions (the PDP must serve an MLS client type). */
  public boolean needsSessions() {
    return rules.stream().anyMatch(Allow::mlsSession);
  }

  /** The first rule allowing {@code subject} a tunnel to {@code gateway}, or null. */
  Allow rule(String subject, String gateway) {
    for (Allow a : rules) {
      if (a.matches(subject, gateway)) {
        return a;
      }
    }
    return null;
  }

  public String describe() {
    return gateways.size() + " gateways, " + rules.size() + " rules from " + source;
  }
}
