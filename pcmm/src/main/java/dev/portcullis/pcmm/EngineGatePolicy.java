package dev.portcullis.pcmm;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.TrafficProfile;
import dev.portcullis.pdp.policy.AsyncPolicyEngine;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.support.ConfigException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Gates decided by a Portcullis policy engine (the PDP's rules or multilevel-security engine, or
 * any other {@link PolicyEngineProvider}), each classifier of a gate as one ACCESS request, all of
 * which must be granted:
 *
 * <ul>
 *   <li>subject: the subscriber's address as text ({@code 10.0.0.1});
 *   <li>source address and port, destination address and port, protocol: the classifier's (an IPv6
 *       classifier's start ports; 0 stands for any, as in PCMM);
 *   <li>service: the DOCSIS Service Class Name, or the profile's kind ({@code flow-spec}, {@code
 *       best-effort}, {@code ugs}, {@code downstream}, {@code profile-N});
 *   <li>access mode: WRITE for an upstream gate (the subscriber sends), READ for a downstream one.
 * </ul>
 *
 * A rule such as {@code <match operation="ACCESS" service="VoIP_UP" destination="192.0.2.10/32"
 * protocol="udp"/>} then allows voice gates to the operator's SIP proxy. {@link #reload()} reads
 * the policy file again; {@link PolicyServer#reevaluate()} applies it to the gates that exist.
 */
public final class EngineGatePolicy implements GatePolicy {
  private final PolicyEngineProvider provider;
  private final Path file;
  private volatile PolicyEngine engine;

  private EngineGatePolicy(PolicyEngineProvider provider, Path file, PolicyEngine engine) {
    this.provider = provider;
    this.file = file;
    this.engine = engine;
  }

  /**
   * Loads {@code file} with the engine named {@code kind} ({@code rules}, {@code mls}).
   *
   * @throws ConfigException naming the file and line at fault, or an engine that does not exist
   */
  public static EngineGatePolicy load(String kind, Path file) throws ConfigException {
    PolicyEngineProvider p = PolicyEngineProvider.named(kind);
    if (p == null) {
      throw new ConfigException(
          file.toString(),
          "no policy engine named \""
              + kind
              + "\" (expected one of "
              + PolicyEngineProvider.names()
              + ")",
          null);
    }
    return new EngineGatePolicy(p, file, p.load(file, null));
  }

  /** Reads the policy file again; the engine in use stays if the file has a mistake. */
  public void reload() throws ConfigException {
    synchronized (this) {
      engine = provider.load(file, engine);
    }
  }

  @Override
  public Verdict decide(GateRequest request, List<Gate> subscribersGates) {
    return decide(engine, request);
  }

  private static Verdict decide(PolicyEngine e, GateRequest request) {
    Verdict v = Verdict.allow(null);
    for (PcmmClassifier c : request.classifiers()) {
      v = verdict(e.decide(policyRequest(request, c)));
      if (!v.allowed()) {
        return v;
      }
    }
    return v;
  }

  /**
   * As {@link #decide}; an asynchronous engine's decisions are continued as they complete, one
   * classifier after another, and never waited for.
   */
  @Override
  public CompletionStage<Verdict> decideAsync(GateRequest request, List<Gate> subscribersGates) {
    PolicyEngine e = engine; // read once: a reload may swap it meanwhile
    if (!(e instanceof AsyncPolicyEngine a)) {
      return CompletableFuture.completedFuture(decide(e, request));
    }
    return Stages.inTurn(
        request.classifiers(),
        c -> a.decideAsync(policyRequest(request, c)).thenApply(EngineGatePolicy::verdict),
        v -> !v.allowed(),
        vs -> vs.isEmpty() ? Verdict.allow(null) : vs.get(vs.size() - 1));
  }

  private static PolicyRequest policyRequest(GateRequest request, PcmmClassifier c) {
    return new PolicyRequest(
        "pcmm", PcmmCops.CLIENT_TYPE, Context.R_CONFIGURATION, 0, access(request, c));
  }

  private static Verdict verdict(PolicyDecision d) {
    String why = "rule " + d.data().ruleId() + ": " + d.data().reason();
    return d.install() ? Verdict.allow(why) : Verdict.deny(why);
  }

  /** The ACCESS request a gate's classifier stands for. */
  static AccessRequest access(GateRequest r, PcmmClassifier c) {
    InetAddress src;
    InetAddress dst;
    int sport;
    int dport;
    int protocol;
    if (c instanceof PcmmClassifier.Classifier x) {
      src = x.source();
      dst = x.destination();
      sport = x.sourcePort();
      dport = x.destinationPort();
      protocol = x.protocol();
    } else if (c instanceof PcmmClassifier.ExtendedClassifier x) {
      src = x.source();
      dst = x.destination();
      sport = x.sourcePortStart();
      dport = x.destinationPortStart();
      protocol = x.protocol();
    } else {
      PcmmClassifier.Ipv6Classifier x = (PcmmClassifier.Ipv6Classifier) c;
      src = x.source();
      dst = x.destination();
      sport = x.sourcePortStart();
      dport = x.destinationPortStart();
      protocol = x.nextHeader();
    }
    return new AccessRequest(
        AccessOperation.ACCESS,
        r.subscriber().address().getHostAddress(),
        null,
        List.of(),
        src,
        sport,
        dst,
        dport,
        protocol,
        service(r.trafficProfile()),
        r.gateSpec().upstream() ? AccessMode.WRITE : AccessMode.READ,
        null,
        null);
  }

  static String service(TrafficProfile p) {
    if (p instanceof TrafficProfile.ServiceClassName s) {
      return s.name();
    }
    return switch (p.sType()) {
      case 1 -> "flow-spec";
      case 3 -> "best-effort";
      case 6 -> "ugs";
      case 8 -> "downstream";
      default -> "profile-" + p.sType();
    };
  }

  @Override
  public String toString() {
    return Objects.toString(engine);
  }
}
