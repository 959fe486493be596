package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.TrafficProfile;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The simplest PCMM engine: a subscriber may hold at most {@code maxGates} gates, and only of the
 * named service classes (an empty set allows any traffic profile, a non-empty one only DOCSIS
 * Service Class Names in it), and a revoked subscriber none. Change the limits at run time with
 * {@link #limits} and call {@link PolicyServer#reevaluate()} to apply them to existing gates.
 */
public final class SubscriberLimits implements GatePolicy {
  private volatile int maxGates;
  private volatile Set<String> serviceClasses;
  private final Set<InetAddress> revoked = ConcurrentHashMap.newKeySet();

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

  /**
   * Revokes {@code subscriber}: no gate for it is allowed until {@link #restore}. Follow with
   * {@code reevaluate(g -> subscriber's)} to delete the gates it holds.
   */
  public void revoke(InetAddress subscriber) {
    revoked.add(subscriber);
  }

  /** Allows {@code subscriber} gates again within the limits. */
  public void restore(InetAddress subscriber) {
    revoked.remove(subscriber);
  }

  @Override
  public Verdict decide(GateRequest request, List<Gate> subscribersGates) {
    if (revoked.contains(request.subscriber().address())) {
      return Verdict.deny(
          "subscriber " + request.subscriber().address().getHostAddress() + " revoked");
    }
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
