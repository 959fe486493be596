package dev.portcullis.pcmm;

import static dev.portcullis.pcmm.PolicyServerTest.FAST;
import static dev.portcullis.pcmm.PolicyServerTest.failure;
import static dev.portcullis.pcmm.PolicyServerTest.ip;
import static dev.portcullis.pcmm.PolicyServerTest.join;
import static dev.portcullis.pcmm.PolicyServerTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import dev.portcullis.support.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Gates decided by the PDP's rules engine, reloaded, and combined with subscriber limits. */
@Timeout(60)
class EngineGatePolicyTest {
  @TempDir Path dir;

  static final String VOICE_ONLY =
      """
      <rules>
        <rule id="voice" decision="install" reason="voice gates to the SIP proxy">
          <match operation="ACCESS" service="VoIP_UP VoIP_DN" destination="192.0.2.10/32" protocol="udp"/>
        </rule>
        <rule id="barred" decision="remove" reason="subscriber barred">
          <match subject="10.1.0.9"/>
        </rule>
        <rule id="best-effort" decision="install" reason="best effort for everyone">
          <match operation="ACCESS" service="BE"/>
        </rule>
        <default decision="remove" reason="no rule allows this gate"/>
      </rules>
      """;

  /** {@code r} with its classifier aimed at 198.51.100.1 instead of the SIP proxy. */
  static GateRequest redirectToHolder(GateRequest r) {
    PcmmClassifier.Classifier c = (PcmmClassifier.Classifier) r.classifiers().get(0);
    return new GateRequest(
        r.amid(),
        r.subscriber(),
        r.gateSpec(),
        r.trafficProfile(),
        List.of(
            new PcmmClassifier.Classifier(
                c.protocol(), 0, 0, c.source(), ip("198.51.100.1"), 0, c.destinationPort(), 64)),
        List.of());
  }

  @Test
  void aClassifierIsAnAccessRequest() {
    GateRequest r = request(7, "VoIP_UP", 5060);
    AccessRequest a = EngineGatePolicy.access(r, r.classifiers().get(0));
    assertEquals("10.1.0.7", a.subject());
    assertEquals("VoIP_UP", a.service());
    assertEquals(ip("192.0.2.10"), a.destinationAddress());
    assertEquals(5060, a.destinationPort());
    assertEquals(17, a.protocol());
    assertEquals(AccessMode.WRITE, a.accessMode(), "an upstream gate: the subscriber sends");
  }

  @Test
  void theRulesDecideAndAReloadAppliesToExistingGates() throws Exception {
    Path policy = Files.writeString(dir.resolve("gates.xml"), VOICE_ONLY);
    EngineGatePolicy rules = EngineGatePolicy.load("rules", policy);
    SubscriberLimits limits = new SubscriberLimits(2, Set.of());
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps =
            PolicyServer.start(sim.addresses(), GatePolicy.all(rules, limits), FAST)) {
      join(ps.ready());
      Gate voice = join(ps.set("cmts-1", request(1, "VoIP_UP", 5060)));
      join(ps.set("cmts-1", request(2, "BE", 80)));
      Throwable e = failure(ps.set("cmts-1", redirectToHolder(request(3, "VoIP_DN", 5060))));
      assertTrue(e.getMessage().contains("no rule allows this gate"), e.getMessage());
      e = failure(ps.set("cmts-1", request(9, "BE", 80)));
      assertTrue(e.getMessage().contains("rule barred: subscriber barred"), e.getMessage());
      join(ps.set("cmts-1", request(1, "BE", 80)));
      e = failure(ps.set("cmts-1", request(1, "BE", 81)));
      assertTrue(e.getMessage().contains("limit 2"), e.getMessage());

      Files.writeString(policy, VOICE_ONLY.replace("VoIP_UP VoIP_DN", "VoIP_DN"));
      rules.reload();
      assertEquals(1, join(ps.reevaluate()));
      assertEquals(2, ps.gates().size());
      assertTrue(ps.gates().stream().noneMatch(g -> g.gateId() == voice.gateId()));
      assertEquals(2, sim.gates());

      Files.writeString(policy, "<rules><rule id=\"x\"></rules>");
      ConfigException bad = assertThrows(ConfigException.class, rules::reload);
      assertTrue(bad.getMessage().contains("gates.xml"), bad.getMessage());
      assertEquals(0, join(ps.reevaluate()), "a policy with a mistake leaves the one in use");
    }
    assertThrows(ConfigException.class, () -> EngineGatePolicy.load("nonesuch", policy));
  }

  /**
   * An asynchronous engine's decisions are continued as they complete, never waited for: a Gate-Set
   * asked while its decision is held is answered once the engine completes it, on the engine's
   * thread; until then nothing is sent and the caller is not held up. Failed before: the engine's
   * decisions were joined on the caller's thread.
   */
  @Test
  void anAsynchronousEnginesDecisionsAreContinuedNeverWaitedFor() throws Exception {
    Path policy = Files.writeString(dir.resolve("gates.xml"), VOICE_ONLY);
    EngineGatePolicy held = EngineGatePolicy.load("test-held", policy);
    HeldEngine engine = HeldEngine.last;
    try (CmtsSimulator sim = new CmtsSimulator(1, CmtsSimulator.Profile.DEFAULT);
        PolicyServer ps = PolicyServer.start(sim.addresses(), held, FAST)) {
      join(ps.ready());
      var voice = ps.set("cmts-1", request(1, "VoIP_UP", 5060));
      var barred = ps.set("cmts-1", request(9, "BE", 80));
      assertEquals(2, engine.asked.get(), "both asked of the engine at once");
      assertFalse(voice.isDone(), "answered before the engine decided");
      assertFalse(barred.isDone());
      assertEquals(0, sim.gates(), "nothing sent before the engine decided");
      engine.release();
      assertEquals(1, join(voice).request().classifiers().size());
      Throwable e = failure(barred);
      assertTrue(e.getMessage().contains("rule barred: subscriber barred"), e.getMessage());
      assertEquals(1, sim.gates());

      Files.writeString(policy, VOICE_ONLY.replace("VoIP_UP VoIP_DN", "VoIP_DN"));
      held.reload();
      HeldEngine reloaded = HeldEngine.last;
      var reevaluated = ps.reevaluate();
      assertFalse(reevaluated.isDone(), "a policy change decided by the engine in its own time");
      reloaded.release();
      assertEquals(1, join(reevaluated), "the voice gate no longer allowed");
      assertEquals(0, sim.gates());
    }
  }
}
