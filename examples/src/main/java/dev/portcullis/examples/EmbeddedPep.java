package dev.portcullis.examples;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepListener;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An application that embeds the PEP client: before it lets a user into a service it asks the PDP,
 * and when the PDP later takes a grant back (an unsolicited Remove, after a policy change) it shuts
 * that user out at once.
 *
 * <p>Here the application starts a PDP of its own on a free loopback port (the rules engine, a
 * policy letting alice and bob use the wiki), lets alice and bob in, then rewrites the policy
 * without alice and reloads it: the PDP pushes a Remove for alice's request, and the application
 * closes her session. Run it with {@code java -cp ... dev.portcullis.examples.EmbeddedPep}.
 */
public final class EmbeddedPep {
  static final String POLICY =
      """
      <rules>
        <rule id="wiki-staff" decision="install" reason="staff may use the wiki">
          <match operation="ACCESS" subject="%s" service="wiki"/>
        </rule>
        <default decision="remove" reason="no rule allows this"/>
      </rules>
      """;
  static final String PDP_XML =
      """
      <pdp>
        <listen address="127.0.0.1" port="0"/>
        <client-type code="0xC0A5" engine="rules" policy="wiki.xml"/>
      </pdp>
      """;

  private EmbeddedPep() {}

  /** The application's side: who is inside the wiki now, by request handle. */
  static final class Wiki implements PepListener {
    final Map<String, String> inside = new ConcurrentHashMap<>();
    final CountDownLatch shutOut = new CountDownLatch(1);
    private final PrintStream out;

    Wiki(PrintStream out) {
      this.out = out;
    }

    /** Called on the PEP's event loop when the PDP changes a decision on its own: be quick. */
    @Override
    public void decisionChanged(String handle, PepDecision d) {
      String user = d.granted() ? null : inside.remove(handle);
      if (user != null) {
        out.printf(
            "PDP took %s's grant back (rule %s: %s): session closed%n",
            user, d.data().ruleId(), d.data().reason());
        shutOut.countDown();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> left = run(System.out);
    System.exit(left.equals(Map.of("bob", "bob")) ? 0 : 1);
  }

  /**
   * Runs the story above.
   *
   * @return who is still inside the wiki at the end, by handle
   */
  static Map<String, String> run(PrintStream out) throws Exception {
    Wiki wiki = new Wiki(out);
    try (LocalPdp pdp = LocalPdp.start(PDP_XML, Map.of("wiki.xml", POLICY.formatted("alice bob")));
        PepClient pep = connect(pdp.address(), "wiki-gateway", AccessRequest.CLIENT_TYPE, wiki)) {
      for (String user : new String[] {"alice", "bob", "mallory"}) {
        enter(pep, wiki, user, out);
      }
      pdp.write("wiki.xml", POLICY.formatted("bob"));
      pdp.server().reload(AccessRequest.CLIENT_TYPE);
      if (!wiki.shutOut.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the PDP did not take alice's grant back");
      }
      return Map.copyOf(wiki.inside);
    }
  }

  /**
   * A PEP named {@code pepId} for {@code clientType}, its client type accepted by the PDP; {@code
   * listener} hears what the PDP does on its own.
   */
  static PepClient connect(
      InetSocketAddress pdp, String pepId, int clientType, PepListener listener) throws Exception {
    PepClient pep =
        PepClient.builder()
            .pdp(pdp)
            .pepId(pepId)
            .clientType(clientType)
            .listener(listener)
            .requestTimeout(Duration.ofSeconds(5))
            .build();
    try {
      pep.open().get(10, TimeUnit.SECONDS);
      return pep;
    } catch (Exception e) {
      pep.close(); // its event loop and connection attempts end with it
      throw e;
    }
  }

  /** Asks the PDP whether {@code user} may use the wiki; lets them in if so. */
  private static void enter(PepClient pep, Wiki wiki, String user, PrintStream out)
      throws Exception {
    // The handle names this request state at the PDP; the PDP's pushes name it too.
    String handle = user;
    PepDecision d =
        pep.request(
                handle,
                new Context(Context.R_INCOMING, 0),
                AccessRequest.access(user, "wiki", AccessMode.READ_WRITE))
            .get(10, TimeUnit.SECONDS);
    if (d.granted()) {
      wiki.inside.put(handle, user);
      out.printf("%s let in (rule %s)%n", user, d.data().ruleId());
    } else {
      out.printf("%s refused: %s%n", user, d.data().reason());
    }
  }
}
