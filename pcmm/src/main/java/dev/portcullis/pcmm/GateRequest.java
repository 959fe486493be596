package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.GateExtra;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What an application manager asks for: a gate for a subscriber's flows, with its QoS (a traffic
 * profile), the packets it carries (one or more classifiers) and optional extras (event generation
 * info, usage limits, opaque data) passed to the CMTS as they are.
 */
public record GateRequest(
    PcmmObject.Amid amid,
    PcmmObject.SubscriberId subscriber,
    PcmmObject.GateSpec gateSpec,
    TrafficProfile trafficProfile,
    List<PcmmClassifier> classifiers,
    List<GateExtra> extras) {
  public GateRequest {
    Objects.requireNonNull(amid, "amid");
    Objects.requireNonNull(subscriber, "subscriber");
    Objects.requireNonNull(gateSpec, "gateSpec");
    Objects.requireNonNull(trafficProfile, "trafficProfile");
    classifiers = List.copyOf(classifiers);
    if (classifiers.isEmpty()) {
      throw new IllegalArgumentException("gate request: no classifier (expected: at least one)");
    }
    extras = List.copyOf(extras == null ? List.of() : extras);
  }

  /** The Gate-Set's objects after its Transaction ID, in the order I02 lists them. */
  List<PcmmObject> gateSetObjects(PcmmObject.GateId modify) {
    List<PcmmObject> l = new ArrayList<>(6 + classifiers.size() + extras.size());
    l.add(amid);
    l.add(subscriber);
    if (modify != null) {
      l.add(modify);
    }
    l.add(gateSpec);
    l.add(trafficProfile);
    l.addAll(classifiers);
    l.addAll(extras);
    return l;
  }
}
