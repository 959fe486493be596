package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.TrafficProfile;
import java.util.List;
import java.util.Set;

/**
 * The simplest PCMM engine: a subscriber may hold at most {@code maxGates} gates, and only of the
 * named service classes (an empty set allows any traffic profile, a non-empty one only DOCSIS
 * Service Class Names in it). Set {@link #maxGates} and {@link #serviceClasses} at run time and
 * call {@link PolicyServer#reevaluate()} to apply the change to existing gates.
 */
public final class SubscriberLimits implements GatePolicy {
  private volatile int maxGates;
  private volatile Set<String> serviceClasses;

  public SubscriberLimits(int maxGates, Set<String> serviceClasses) {
    limits(maxGates, serviceClasses);
  }

  /** New limits: applied to new gates at once, to existing ones by a re-evaluation. */
  public void limits(int maxGates, Set<String> serviceClasses) {
    if (maxGates < 0) {
      throw new IllegalArgumentException("max gates: " + maxGates + " (expected: >= 0)");
    }
    this.serviceClasses = Set.copyOf(serviceClasses);
    this.maxGates = maxGates;
  }

  @Override
  public Verdict decide(GateRequest request, List<Gate> subscribersGates) {
    Set<String> classes = serviceClasses;
    if (!classes.isEmpty()) {
      if (!(request.trafficProfile() instanceof TrafficProfile.ServiceClassName scn)) {
        return Verdict.deny("only service classes " + classes + " are allowed");
      }
      if (!classes.contains(scn.name())) {
        return Verdict.deny("service class " + scn.name() + " not allowed");
      }
    }
    int others = subscribersGates.size();
    if (others >= maxGates) {
      return Verdict.deny(
          "subscriber "
              + request.subscriber().address().getHostAddress()
              + " holds "
              + others
              + " gates (limit "
              + maxGates
              + ")");
    }
    return Verdict.allow("within the subscriber's limits");
  }
}
