package dev.portcullis.pdp.policy.mls;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.access.AccessDecision;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.policy.EngineEnvironment;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.XmlConfigReader;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * Multilevel security as MYSEA enforces it (the MYSEA thesis, chapter 2): subjects hold clearances
 * (a range of levels and a set of categories), log in at a session level inside their clearance,
 * and every new connection to a labelled service is checked against the session's label.
 *
 * <ul>
 *   <li>Bell-LaPadula (confidentiality): read only if the session dominates the service (no read
 *       up), write only if the service dominates the session (no write down).
 *   <li>Biba (integrity): read only if the service dominates the session (no read down), write only
 *       if the session dominates the service (no write up).
 *   <li>Read-write needs both, so it is granted only at equal labels.
 * </ul>
 *
 * <p>Session operations are requests: LOGIN opens a session at the request's session level and
 * categories, CHANGE_LEVEL moves it to the requested level, LOGOUT (or deleting the login's request
 * state) ends it. Sessions are keyed by PEP and subject and survive policy reloads.
 */
public final class MlsEngine implements PolicyEngine {
  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(MlsEngine.class, "/dev/portcullis/pdp/policy-mls.xsd");

  /** The provider named {@code mls}. */
  public static final class Provider implements PolicyEngineProvider {
    @Override
    public String name() {
      return "mls";
    }

    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous) throws ConfigException {
      return load(policyFile, previous, EngineEnvironment.ALONE);
    }

    /**
     * Sessions survive a reload (the new engine takes the old one's table); at start they are this
     * PDP's own, or the fleet's when the PDP has a state store.
     */
    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous, EngineEnvironment env)
        throws ConfigException {
      MlsEngine e = MlsEngine.load(policyFile);
      if (previous instanceof MlsEngine p) {
        e.sessions = p.sessions;
      } else if (env.store() != null) {
        try {
          e.sessions = new FleetSessions(env.store(), env.linearizable(), env.stateChanged());
        } catch (StoreException x) {
          throw new ConfigException(policyFile.toString(), "fleet sessions: " + x.getMessage(), x);
        }
      } else {
        e.sessions = new LocalSessions(env.stateChanged());
      }
      return e;
    }
  }

  /** Which model a service is checked under. */
  public enum Model {
    BLP,
    BIBA
  }

  private record Clearance(int min, int max, Set<String> categories) {}

  private record Service(Label label, Model model) {}

  private final Map<String, Integer> levels;
  private final Map<Integer, String> levelNames;
  private final Set<String> categories;
  private final Map<String, Clearance> subjects;
  private final Map<String, Service> services;
  private SessionTable sessions = new LocalSessions();
  private final String source;

  private MlsEngine(
      Map<String, Integer> levels,
      Set<String> categories,
      Map<String, Clearance> subjects,
      Map<String, Service> services,
      String source) {
    this.levels = levels;
    this.levelNames = new HashMap<>();
    levels.forEach((n, r) -> levelNames.put(r, n));
    this.categories = categories;
    this.subjects = subjects;
    this.services = services;
    this.source = source;
  }

  /** Reads an MLS policy file. */
  public static MlsEngine load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Map<String, Integer> levels = new HashMap<>();
    Set<Integer> ranks = new HashSet<>();
    for (Element l : children(child(root, "levels"), "level")) {
      String name = attr(l, "name", "");
      int rank = XmlConfigReader.integer(l, "rank", 0, 0, 0xFFFF);
      if (levels.put(name, rank) != null) {
        throw error(l, "name", "level " + name + " defined twice");
      }
      if (!ranks.add(rank)) {
        throw error(
            l, "rank", "rank " + rank + " used by two levels (expected: one level per rank)");
      }
    }
    Set<String> cats = new LinkedHashSet<>();
    Element ce = child(root, "categories");
    if (ce != null) {
      for (Element c : children(ce, "category")) {
        if (!cats.add(attr(c, "name", ""))) {
          throw error(c, "name", "category " + attr(c, "name", "") + " defined twice");
        }
      }
    }
    Map<String, Clearance> subjects = new HashMap<>();
    for (Element s : children(root, "subject")) {
      int min = level(s, "min", levels);
      int max = level(s, "max", levels);
      if (min > max) {
        throw error(s, "max", "max below min (expected: min <= max)");
      }
      Clearance c = new Clearance(min, max, categories(s, cats));
      if (subjects.put(attr(s, "name", ""), c) != null) {
        throw error(s, "name", "subject " + attr(s, "name", "") + " defined twice");
      }
    }
    Map<String, Service> services = new HashMap<>();
    for (Element s : children(root, "service")) {
      Service svc =
          new Service(
              new Label(level(s, "level", levels), categories(s, cats)),
              "biba".equals(XmlConfigReader.value(s, "model")) ? Model.BIBA : Model.BLP);
      if (services.put(attr(s, "name", ""), svc) != null) {
        throw error(s, "name", "service " + attr(s, "name", "") + " defined twice");
      }
    }
    return new MlsEngine(levels, cats, subjects, services, file.toString());
  }

  private static int level(Element e, String a, Map<String, Integer> levels)
      throws ConfigException {
    Integer r = levels.get(attr(e, a, ""));
    if (r == null) {
      throw error(e, a, a + ": " + attr(e, a, "") + " (expected: one of " + levels.keySet() + ")");
    }
    return r;
  }

  private static Set<String> categories(Element e, Set<String> known) throws ConfigException {
    Set<String> out = new LinkedHashSet<>();
    for (String w : attr(e, "categories", "").trim().split("\\s+")) {
      if (w.isEmpty()) {
        continue;
      }
      if (!known.contains(w)) {
        throw error(e, "categories", "category " + w + " (expected: one of " + known + ")");
      }
      out.add(w);
    }
    return out;
  }

  // ---- decisions --------------------------------------------------------------------------------

  private String key(PolicyRequest r) {
    return sessions.key(r.pepId(), r.access().subject());
  }

  @Override
  public PolicyDecision decide(PolicyRequest r) {
    return evaluate(r, true);
  }

  @Override
  public PolicyDecision reevaluate(PolicyRequest r) {
    return evaluate(r, false);
  }

  @Override
  public void released(PolicyRequest r) {
    switch (r.access().operation()) {
      case LOGIN:
      case CHANGE_LEVEL:
        sessions.remove(key(r));
        break;
      default:
        break;
    }
  }

  private PolicyDecision evaluate(PolicyRequest r, boolean mutate) {
    try {
      return evaluateOrFail(r, mutate);
    } catch (SessionTable.Unavailable e) {
      return deny(e.getMessage()); // shared state unknown: fail closed
    }
  }

  private PolicyDecision evaluateOrFail(PolicyRequest r, boolean mutate)
      throws SessionTable.Unavailable {
    AccessRequest a = r.access();
    Clearance c = subjects.get(a.subject());
    if (c == null) {
      return deny("no clearance for subject " + a.subject());
    }
    switch (a.operation()) {
      case LOGIN:
        {
          if (a.sessionLevel() == null) {
            return deny("login without a session level");
          }
          Label want = new Label(a.sessionLevel(), new LinkedHashSet<>(a.categories()));
          String why = withinClearance(c, want);
          if (why != null) {
            return deny(why);
          }
          if (mutate) {
            sessions.put(key(r), want);
          }
          return grant("login", want);
        }
      case CHANGE_LEVEL:
        {
          Label now = sessions.get(key(r), mutate);
          if (now == null) {
            return deny("no session to change");
          }
          if (a.requestedLevel() == null) {
            return deny("change of level without a requested level");
          }
          Label want = new Label(a.requestedLevel(), now.categories());
          String why = withinClearance(c, want);
          if (why != null) {
            return deny(why);
          }
          if (mutate) {
            sessions.put(key(r), want);
          }
          return grant("change-level", want);
        }
      case LOGOUT:
        if (mutate) {
          sessions.remove(key(r));
        }
        return PolicyDecision.grant("logout", "session ended");
      default:
        return access(r, c, mutate);
    }
  }

  private PolicyDecision access(PolicyRequest r, Clearance c, boolean fresh)
      throws SessionTable.Unavailable {
    AccessRequest a = r.access();
    Label session = sessions.get(key(r), fresh);
    if (session == null) {
      return deny("no session: log in first");
    }
    if (withinClearance(c, session) != null) {
      return deny("session label no longer within clearance");
    }
    Service s = a.service() == null ? null : services.get(a.service());
    if (s == null) {
      return deny("unlabelled service " + a.service());
    }
    AccessMode mode = a.accessMode() == null ? AccessMode.READ : a.accessMode();
    boolean read = mode != AccessMode.WRITE;
    boolean write = mode != AccessMode.READ;
    boolean ok =
        (!read || mayRead(s.model(), session, s.label()))
            && (!write || mayWrite(s.model(), session, s.label()));
    String model = s.model() == Model.BLP ? "Bell-LaPadula" : "Biba";
    return ok
        ? new PolicyDecision(
            true,
            new AccessDecision(
                "mls-" + s.model().name().toLowerCase(Locale.ROOT),
                model + " " + mode + " at " + describe(session) + " on " + describe(s.label()),
                session.rank(),
                null,
                List.copyOf(session.categories()),
                null))
        : deny(
            model + " forbids " + mode + " at " + describe(session) + " on " + describe(s.label()));
  }

  /** Bell-LaPadula: no read up. Biba: no read down. */
  public static boolean mayRead(Model m, Label subject, Label object) {
    return m == Model.BLP ? subject.dominates(object) : object.dominates(subject);
  }

  /** Bell-LaPadula: no write down. Biba: no write up. */
  public static boolean mayWrite(Model m, Label subject, Label object) {
    return m == Model.BLP ? object.dominates(subject) : subject.dominates(object);
  }

  private String withinClearance(Clearance c, Label l) {
    if (!levelNames.containsKey(l.rank())) {
      return "level " + l.rank() + " is not a level of this policy";
    }
    if (l.rank() < c.min() || l.rank() > c.max()) {
      return "level "
          + levelNames.get(l.rank())
          + " outside clearance "
          + levelNames.get(c.min())
          + ".."
          + levelNames.get(c.max());
    }
    if (!c.categories().containsAll(l.categories())) {
      return "categories " + l.categories() + " beyond clearance " + c.categories();
    }
    return null;
  }

  private String describe(Label l) {
    return levelNames.getOrDefault(l.rank(), String.valueOf(l.rank())) + l.categories();
  }

  private static PolicyDecision grant(String rule, Label l) {
    return new PolicyDecision(
        true, new AccessDecision(rule, null, l.rank(), null, List.copyOf(l.categories()), null));
  }

  private static PolicyDecision deny(String why) {
    return PolicyDecision.deny("mls", why);
  }

  /**
   * The rank of {@code subject}'s session level through any PEP (a tunnel's rule may require one,
   * docs/tunnels.md), or null when it holds no session or the sessions cannot be read now (fail
   * closed).
   */
  public Integer sessionRank(String subject) {
    try {
      Label l = sessions.labelOf(subject);
      return l == null ? null : l.rank();
    } catch (SessionTable.Unavailable e) {
      return null;
    }
  }

  /** The rank of level {@code name}, or null if this policy has no such level. */
  public Integer rank(String name) {
    return levels.get(name);
  }

  /** Open sessions, for status and tests. */
  public int sessionCount() {
    return sessions.size();
  }

  /**
   * One open session, for an operator (docs/operate.md).
   *
   * @param pepId the PEP it was opened through; null for a fleet's sessions (one per subject)
   * @param level its level's name
   */
  public record Session(
      String pepId, String subject, String level, java.util.List<String> categories) {}

  /** The open sessions now, by subject (a fleet's: this PDP's view of them). */
  public java.util.List<Session> sessions() {
    return sessions.list().stream()
        .map(
            o ->
                new Session(
                    o.pepId(),
                    o.subject(),
                    levelNames.getOrDefault(o.label().rank(), String.valueOf(o.label().rank())),
                    o.label().categories().stream().sorted().toList()))
        .sorted(
            java.util.Comparator.comparing(Session::subject)
                .thenComparing(s -> String.valueOf(s.pepId())))
        .toList();
  }

  /**
   * Ends every session of {@code subject}, through whichever PEP it was opened (an operator's
   * revocation, docs/operate.md): as a logout would, so that the installed requests it decided are
   * decided again. A fleet's session is deleted from the store: call it off the event loops.
   *
   * @return how many sessions ended
   */
  public int endSessions(String subject) {
    int ended = 0;
    for (SessionTable.Open o : sessions.list()) {
      if (o.subject().equals(subject)) {
        sessions.remove(sessions.key(o.pepId(), subject));
        ended++;
      }
    }
    return ended;
  }

  /** Where the sessions are kept, for logs. */
  public String sessionsDescription() {
    return sessions.describe();
  }

  @Override
  public String describe() {
    return levels.size()
        + " levels, "
        + categories.size()
        + " categories, "
        + subjects.size()
        + " subjects, "
        + services.size()
        + " services from "
        + source;
  }
}
