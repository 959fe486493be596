package dev.portcullis.pdp.tunnel;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelRequest.Objective;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Glob;
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

  /**
   * What the policy gives one subject wherever it tunnels: its inner prefix (null: the rule's) and
   * its IKE identity (null: the rule's).
   */
  record Subject(String name, TrafficSelector inner, String ikeId) {}

  /**
   * What a tunnel of a subject under a rule is granted, whatever its request says: the prefix its
   * client may send from (null: the policy gives it none) and its IKE identity, where {@code {tag}}
   * stands for a number the request chooses (so that one subject's tunnels to one gateway have
   * identities of their own: charon finds each tunnel's key by its identities).
   */
  record Terms(TrafficSelector inner, String ikeId) {
    /** Whether {@code asked} is this identity, {@code {tag}} matched by 1 to 9 digits. */
    boolean identity(String asked) {
      if (!ikeId.contains(TAG)) {
        return ikeId.equals(asked);
      }
      StringBuilder re = new StringBuilder();
      String[] parts = ikeId.split(Pattern.quote(TAG), -1);
      for (int i = 0; i < parts.length; i++) {
        if (i > 0) {
          re.append("[0-9]{1,9}");
        }
        re.append(Pattern.quote(parts[i]));
      }
      return asked.matches(re.toString());
    }
  }

  /** In an IKE identity: a number of the request's choosing. */
  static final String TAG = "{tag}";

  /**
   * A rule allowing tunnels.
   *
   * @param inner the prefix its tunnels' clients send from, for subjects without one of their own
   *     (null: none)
   * @param ikeId the clients' IKE identity, {@code {subject}} standing for the subject
   * @param credential whether each tunnel takes a fresh one-time credential
   * @param certificates whether its tunnels are keyed by one-time key pairs the PDP's authority
   *     certifies (the default), rather than by a pre-shared key
   * @param pool where its tunnels' clients get their inner address: one address of it each, which
   *     the gateway hands out as a virtual IP (null: the client names its inner prefix)
   */
  record Allow(
      String id,
      List<Pattern> subjects,
      String gateway,
      Set<Objective> objectives,
      Duration lifetime,
      int maxTunnels,
      boolean mlsSession,
      String confidentialFrom,
      TrafficSelector inner,
      String ikeId,
      boolean credential,
      boolean certificates,
      TrafficSelector pool) {
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
  private final Map<String, Subject> subjects;
  private final List<Allow> rules;
  private final String source;

  private TunnelPolicy(
      Map<String, Gateway> gateways,
      Map<String, Subject> subjects,
      List<Allow> rules,
      String source) {
    this.gateways = gateways;
    this.subjects = subjects;
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
    Map<String, Subject> subjects = new LinkedHashMap<>();
    for (Element e : children(root, "subject")) {
      String name = attr(e, "name", "");
      TrafficSelector inner = e.hasAttribute("inner") ? prefix(e, "inner") : null;
      String ike = e.hasAttribute("ike-id") ? identity(e) : null;
      if (subjects.putIfAbsent(name, new Subject(name, inner, ike)) != null) {
        throw error(e, "name", "subject " + name + " defined twice");
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
      List<Pattern> globs = new ArrayList<>();
      for (String s : attr(a, "subject", "").trim().split("\\s+")) {
        globs.add(Glob.pattern(s));
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
      TrafficSelector inner = a.hasAttribute("inner") ? prefix(a, "inner") : null;
      TrafficSelector pool = a.hasAttribute("pool") ? prefix(a, "pool") : null;
      if (pool != null && inner != null) {
        throw error(
            a,
            "pool",
            "inner= and pool= both: a rule's tunnels either send from a prefix their clients"
                + " name (inner) or get one address each from its pool (pool)");
      }
      if (pool != null && pool.overlaps(gateways.get(gw).network())) {
        throw error(
            a,
            "pool",
            "pool "
                + pool
                + " overlaps gateway "
                + gw
                + "'s network "
                + gateways.get(gw).network()
                + ": a client's address is on its side of the tunnel, not the gateway's");
      }
      if (pool != null
          && pool.contains(
              new TrafficSelector(
                  gateways.get(gw).address(),
                  gateways.get(gw).address().getAddress().length * 8))) {
        throw error(
            a,
            "pool",
            "pool "
                + pool
                + " holds gateway "
                + gw
                + "'s own address "
                + gateways.get(gw).address().getHostAddress()
                + ": a client given it would route the gateway's IKE and ESP into its tunnel");
      }
      String ike = identity(a);
      boolean credential =
          switch (attr(a, "credential", "")) {
            case "per-tunnel" -> true;
            case "none" -> false;
            default ->
                throw error(
                    a,
                    "credential",
                    "credential " + attr(a, "credential", "") + " (expected: per-tunnel or none)");
          };
      boolean certificates =
          switch (attr(a, "keying", "")) {
            case "certificates" -> true;
            case "psk" -> false;
            default ->
                throw error(
                    a,
                    "keying",
                    "keying " + attr(a, "keying", "") + " (expected: certificates or psk)");
          };
      if (certificates) {
        String sample = ike.replace("{subject}", "subject").replace(TAG, "1");
        String why = dev.portcullis.support.pki.TunnelCertificates.nameRefusal(sample);
        if (why != null) {
          throw error(a, "ike-id", why);
        }
      }
      rules.add(
          new Allow(
              id,
              globs,
              gw,
              objectives,
              lifetime,
              max,
              mls,
              confidentialFrom,
              inner,
              ike,
              credential,
              certificates,
              pool));
    }
    return new TunnelPolicy(
        Map.copyOf(gateways), Map.copyOf(subjects), List.copyOf(rules), file.toString());
  }

  /** An {@code ike-id} attribute, checked. */
  private static String identity(Element e) throws ConfigException {
    String ike = attr(e, "ike-id", "").trim();
    if (ike.isEmpty()) {
      throw error(
          e, "ike-id", "an empty IKE identity (expected: a name, {subject} for the subject)");
    }
    if (ike.contains("{subject}" + TAG)) {
      throw error(
          e,
          "ike-id",
          "ike-id "
              + ike
              + ": {tag} right after {subject} makes one identity of two subjects' (erin1 with"
              + " tag 2, erin with tag 12): put a separator between them, {subject}-{tag}");
    }
    return ike;
  }

  private static TrafficSelector prefix(Element e, String name) throws ConfigException {
    try {
      return TrafficSelector.parse(attr(e, name, "").trim());
    } catch (IllegalArgumentException x) {
      throw error(e, name, x.getMessage());
    }
  }

  /**
   * What {@code rule} grants {@code subject}'s tunnels: the subject's own inner prefix and IKE
   * identity where the policy names the subject, else the rule's.
   */
  Terms terms(Allow rule, String subject) {
    Subject s = subjects.get(subject);
    TrafficSelector inner = s != null && s.inner() != null ? s.inner() : rule.inner();
    String ike =
        s != null && s.ikeId() != null ? s.ikeId() : rule.ikeId().replace("{subject}", subject);
    return new Terms(inner, ike);
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

  /** The first rule that keys its tunnels by certificates, or null. */
  public String certificateRule() {
    return rules.stream().filter(Allow::certificates).map(Allow::id).findFirst().orElse(null);
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
    return gateways.size()
        + " gateways, "
        + subjects.size()
        + " subjects, "
        + rules.size()
        + " rules from "
        + source;
  }
}
