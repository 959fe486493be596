package dev.portcullis.pdp.policy.rules;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.access.AccessDecision;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Prefix;
import dev.portcullis.support.XmlConfigReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * The rules engine: an ordered list of rules, each a set of conditions on the request and an
 * outcome; the first rule whose conditions all hold decides, and a default outcome is required.
 * Stateless, so {@link #decide} is safe from any thread. Format: docs/pdp.md.
 */
public final class RulesEngine implements PolicyEngine {
  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(RulesEngine.class, "/dev/portcullis/pdp/policy-rules.xsd");

  /** The provider named {@code rules}. */
  public static final class Provider implements PolicyEngineProvider {
    @Override
    public String name() {
      return "rules";
    }

    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous) throws ConfigException {
      return RulesEngine.load(policyFile);
    }
  }

  private record Rule(String id, Condition[] conditions, PolicyDecision outcome) {
    boolean matches(PolicyRequest r) {
      for (Condition c : conditions) {
        if (!c.test(r)) {
          return false;
        }
      }
      return true;
    }
  }

  private final Rule[] rules;
  private final PolicyDecision fallback;
  private final String source;

  private RulesEngine(List<Rule> rules, PolicyDecision fallback, String source) {
    this.rules = rules.toArray(new Rule[0]);
    this.fallback = fallback;
    this.source = source;
  }

  /** Reads and compiles a rules file. */
  public static RulesEngine load(Path file) throws ConfigException {
    Element root = READER.read(file);
    List<Rule> rules = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (Element r : children(root, "rule")) {
      String id = attr(r, "id", "");
      if (!ids.add(id)) {
        throw error(r, "id", "rule id " + id + " used twice (expected: unique ids)");
      }
      Element m = child(r, "match");
      Condition[] conditions = m == null ? new Condition[0] : compile(m);
      rules.add(new Rule(id, conditions, outcome(r, id)));
    }
    Element d = child(root, "default");
    return new RulesEngine(rules, outcome(d, "default"), file.toString());
  }

  @Override
  public PolicyDecision decide(PolicyRequest request) {
    for (Rule r : rules) {
      if (r.matches(request)) {
        return r.outcome();
      }
    }
    return fallback;
  }

  @Override
  public String describe() {
    return rules.length + " rules from " + source;
  }

  // ---- compiling -------------------------------------------------------------------------------

  private static PolicyDecision outcome(Element e, String id) throws ConfigException {
    boolean install = "install".equals(attr(e, "decision", "remove"));
    String reason = attr(e, "reason", null);
    Element g = child(e, "grant");
    Integer level = null;
    Long validFor = null;
    List<String> cats = List.of();
    if (g != null) {
      if (!install) {
        throw error(g, null, "a <grant> on a remove decision (expected: grants only with install)");
      }
      if (g.hasAttribute("level")) {
        level = XmlConfigReader.integer(g, "level", 0, 0, 0xFFFF);
      }
      Duration v = XmlConfigReader.duration(g, "valid-for", null);
      if (v != null) {
        validFor = Math.min(v.getSeconds(), 0xFFFF_FFFFL);
      }
      cats = words(attr(g, "categories", ""));
    }
    return new PolicyDecision(install, new AccessDecision(id, reason, level, validFor, cats, null));
  }

  private static List<String> words(String s) {
    List<String> out = new ArrayList<>();
    for (String w : s.trim().split("\\s+")) {
      if (!w.isEmpty()) {
        out.add(w);
      }
    }
    return out;
  }

  private static List<String> required(Element m, String a) throws ConfigException {
    List<String> w = words(attr(m, a, ""));
    if (w.isEmpty()) {
      throw error(m, a, a + ": empty (expected: at least one value, or leave the attribute out)");
    }
    return w;
  }

  private static Condition[] compile(Element m) throws ConfigException {
    List<Condition> c = new ArrayList<>();
    if (m.hasAttribute("pep")) {
      c.add(Condition.globs(required(m, "pep"), PolicyRequest::pepId));
    }
    if (m.hasAttribute("client-type")) {
      c.add(Condition.ints(numbers(m, "client-type", 0xFFFF), PolicyRequest::clientType));
    }
    if (m.hasAttribute("r-type")) {
      int mask = 0;
      for (int v : numbers(m, "r-type", 0xFFFF)) {
        mask |= v;
      }
      int flags = mask;
      c.add(r -> (r.rType() & flags) != 0);
    }
    if (m.hasAttribute("m-type")) {
      c.add(Condition.ints(numbers(m, "m-type", 0xFFFF), PolicyRequest::mType));
    }
    if (m.hasAttribute("operation")) {
      Set<AccessOperation> ops = new HashSet<>();
      for (String w : required(m, "operation")) {
        try {
          ops.add(AccessOperation.valueOf(w.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw error(
              m,
              "operation",
              "operation: " + w + " (expected: ACCESS, LOGIN, CHANGE_LEVEL or LOGOUT)");
        }
      }
      c.add(r -> ops.contains(r.access().operation()));
    }
    if (m.hasAttribute("subject")) {
      c.add(Condition.globs(required(m, "subject"), r -> r.access().subject()));
    }
    if (m.hasAttribute("service")) {
      c.add(Condition.globs(required(m, "service"), r -> r.access().service()));
    }
    if (m.hasAttribute("source")) {
      c.add(Condition.cidrs(cidrs(m, "source"), AccessRequest::sourceAddress));
    }
    if (m.hasAttribute("destination")) {
      c.add(Condition.cidrs(cidrs(m, "destination"), AccessRequest::destinationAddress));
    }
    if (m.hasAttribute("source-port")) {
      c.add(Condition.ranges(ranges(m, "source-port"), r -> orMinus1(r.access().sourcePort())));
    }
    if (m.hasAttribute("destination-port")) {
      c.add(
          Condition.ranges(
              ranges(m, "destination-port"), r -> orMinus1(r.access().destinationPort())));
    }
    if (m.hasAttribute("protocol")) {
      List<String> w = required(m, "protocol");
      int[] p = new int[w.size()];
      for (int i = 0; i < p.length; i++) {
        p[i] = protocol(m, w.get(i));
      }
      c.add(Condition.ints(p, r -> orMinus1(r.access().protocol())));
    }
    if (m.hasAttribute("access-mode")) {
      Set<AccessMode> modes = new HashSet<>();
      for (String w : required(m, "access-mode")) {
        try {
          modes.add(AccessMode.valueOf(w.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw error(
              m, "access-mode", "access-mode: " + w + " (expected: READ, WRITE or READ_WRITE)");
        }
      }
      c.add(r -> modes.contains(r.access().accessMode()));
    }
    if (m.hasAttribute("min-level")) {
      int min = XmlConfigReader.integer(m, "min-level", 0, 0, 0xFFFF);
      c.add(r -> r.access().sessionLevel() != null && r.access().sessionLevel() >= min);
    }
    if (m.hasAttribute("max-level")) {
      int max = XmlConfigReader.integer(m, "max-level", 0, 0, 0xFFFF);
      c.add(r -> r.access().sessionLevel() != null && r.access().sessionLevel() <= max);
    }
    if (m.hasAttribute("categories")) {
      c.add(Condition.allCategories(new LinkedHashSet<>(required(m, "categories"))));
    }
    return c.toArray(new Condition[0]);
  }

  private static int orMinus1(Integer v) {
    return v == null ? -1 : v;
  }

  private static int[] numbers(Element m, String a, int max) throws ConfigException {
    List<String> w = required(m, a);
    int[] out = new int[w.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = number(m, a, w.get(i), max);
    }
    return out;
  }

  private static int number(Element m, String a, String w, int max) throws ConfigException {
    try {
      long v =
          w.startsWith("0x") || w.startsWith("0X")
              ? Long.parseLong(w.substring(2), 16)
              : Long.parseLong(w);
      if (v < 0 || v > max) {
        throw new NumberFormatException();
      }
      return (int) v;
    } catch (NumberFormatException e) {
      throw error(
          m, a, a + ": " + w + " (expected: a number from 0 to " + max + ", decimal or 0x hex)");
    }
  }

  private static int[][] ranges(Element m, String a) throws ConfigException {
    List<String> w = required(m, a);
    int[][] out = new int[w.size()][];
    for (int i = 0; i < out.length; i++) {
      String s = w.get(i);
      int dash = s.indexOf('-');
      int lo = number(m, a, dash < 0 ? s : s.substring(0, dash), 0xFFFF);
      int hi = dash < 0 ? lo : number(m, a, s.substring(dash + 1), 0xFFFF);
      if (hi < lo) {
        throw error(m, a, a + ": " + s + " (expected: low-high with low <= high)");
      }
      out[i] = new int[] {lo, hi};
    }
    return out;
  }

  private static int protocol(Element m, String w) throws ConfigException {
    switch (w.toLowerCase(Locale.ROOT)) {
      case "icmp":
        return 1;
      case "tcp":
        return 6;
      case "udp":
        return 17;
      case "sctp":
        return 132;
      default:
        return number(m, "protocol", w, 255);
    }
  }

  private static List<Prefix> cidrs(Element m, String a) throws ConfigException {
    List<Prefix> out = new ArrayList<>();
    for (String w : required(m, a)) {
      try {
        out.add(Prefix.parse(w)); // literal addresses only: a name would need DNS at load time
      } catch (IllegalArgumentException e) {
        throw error(
            m,
            a,
            a
                + ": "
                + w
                + " (expected: an IPv4 or IPv6 address block, e.g. 10.0.0.0/8): "
                + e.getMessage());
      }
    }
    return out;
  }
}
