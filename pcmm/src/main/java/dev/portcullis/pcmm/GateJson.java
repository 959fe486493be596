package dev.portcullis.pcmm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The HTTP API's JSON for a gate (docs/pcmm.md, "Application managers over HTTP"): a request read
 * strictly (an unknown field, a wrong type or a value out of range is refused naming the field,
 * {@code classifiers[1].destination-port}), a gate written back.
 */
final class GateJson {
  static final ObjectMapper JSON = new ObjectMapper();

  /** Most classifiers one gate may carry through the API. */
  static final int MAX_CLASSIFIERS = 16;

  private static final Set<String> GATE_FIELDS =
      Set.of(
          "cmts",
          "subscriber",
          "direction",
          "service-class",
          "envelope",
          "session-class",
          "dscp",
          "timers",
          "classifiers");
  private static final Set<String> CLASSIFIER_FIELDS =
      Set.of("protocol", "source", "source-port", "destination", "destination-port", "priority");
  private static final Set<String> TIMER_FIELDS = Set.of("t1", "t2", "t3", "t4");
  private static final Map<String, Integer> PROTOCOLS = Map.of("tcp", 6, "udp", 17, "icmp", 1);

  private GateJson() {}

  /** What a request body was wrong about, naming the field. */
  static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message, null, false, false);
    }
  }

  /** A request's CMTS and gate. */
  record Parsed(String cmts, GateRequest request) {}

  /** Reads a gate request for the application manager {@code amid}. */
  static Parsed request(byte[] body, PcmmObject.Amid amid) throws BadRequest {
    try {
      return read(body, amid);
    } catch (IllegalArgumentException e) {
      // a value the PCMM objects refuse that the checks here let through: still the request's
      throw new BadRequest(e.getMessage());
    }
  }

  private static Parsed read(byte[] body, PcmmObject.Amid amid) throws BadRequest {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      // some of Jackson's refusals (its nesting and length limits) carry no location
      throw new BadRequest(
          "not JSON: "
              + e.getOriginalMessage()
              + (e.getLocation() == null ? "" : " at offset " + e.getLocation().getCharOffset()));
    } catch (java.io.IOException e) {
      throw new BadRequest("not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new BadRequest("expected a JSON object");
    }
    known(root, "", GATE_FIELDS);
    String cmts = text(root, "cmts", null);
    InetAddress subscriber = address(root, "subscriber");
    String direction = text(root, "direction", null);
    if (!direction.equals("upstream") && !direction.equals("downstream")) {
      throw new BadRequest("direction: \"" + direction + "\" (expected: upstream or downstream)");
    }
    String envelopeName = text(root, "envelope", "committed");
    int envelope =
        switch (envelopeName) {
          case "authorized" -> TrafficProfile.AUTHORIZED;
          case "reserved" -> TrafficProfile.RESERVED;
          case "committed" -> TrafficProfile.COMMITTED;
          default ->
              throw new BadRequest(
                  "envelope: \""
                      + envelopeName
                      + "\" (expected: authorized, reserved or committed)");
        };
    TrafficProfile profile;
    String serviceClass = text(root, "service-class", null);
    if (serviceClass.length() > TrafficProfile.ServiceClassName.MAX) {
      // 16 is read from CMTSs that write it so, never asked for here (I02 has at most 15)
      throw new BadRequest(
          "service-class: \"" + serviceClass + "\" (expected: 1 to 15 printable ASCII characters)");
    }
    try {
      profile = new TrafficProfile.ServiceClassName(envelope, serviceClass);
    } catch (IllegalArgumentException e) {
      throw new BadRequest("service-class: " + e.getMessage());
    }
    JsonNode timers = root.path("timers");
    if (!timers.isMissingNode() && !timers.isObject()) {
      throw new BadRequest("timers: expected an object {\"t1\": seconds, ...}");
    }
    known(timers, "timers.", TIMER_FIELDS);
    int flags = direction.equals("upstream") ? PcmmObject.GateSpec.UPSTREAM : 0;
    int dscpTos = 0;
    int dscpMask = 0;
    if (root.has("dscp")) {
      flags |= PcmmObject.GateSpec.DSCP_OVERWRITE;
      dscpTos = number(root, "dscp", 0, 0, 63) << 2;
      dscpMask = 0xFC;
    }
    PcmmObject.GateSpec spec =
        new PcmmObject.GateSpec(
            flags,
            dscpTos,
            dscpMask,
            number(root, "session-class", 1, 0, 255),
            number(timers, "t1", 200, 0, 0xFFFF),
            number(timers, "t2", 300, 0, 0xFFFF),
            number(timers, "t3", 0, 0, 0xFFFF),
            number(timers, "t4", 0, 0, 0xFFFF));
    JsonNode cs = root.path("classifiers");
    if (!cs.isArray() || cs.isEmpty() || cs.size() > MAX_CLASSIFIERS) {
      throw new BadRequest(
          "classifiers: expected an array of 1 to " + MAX_CLASSIFIERS + " classifiers");
    }
    List<PcmmClassifier> classifiers = new ArrayList<>();
    for (int i = 0; i < cs.size(); i++) {
      classifiers.add(classifier(cs.get(i), "classifiers[" + i + "].", i + 1));
    }
    return new Parsed(
        cmts,
        new GateRequest(
            amid, new PcmmObject.SubscriberId(subscriber), spec, profile, classifiers, List.of()));
  }

  private static PcmmClassifier classifier(JsonNode c, String at, int id) throws BadRequest {
    if (!c.isObject()) {
      throw new BadRequest(at.substring(0, at.length() - 1) + ": expected an object");
    }
    known(c, at, CLASSIFIER_FIELDS);
    int protocol = protocol(c.path("protocol"), at + "protocol");
    InetAddress src = c.has("source") ? address(c, "source", at) : null;
    InetAddress dst = address(c, "destination", at);
    if (src == null) { // any source, of the destination's family
      src = dst instanceof Inet6Address ? any6() : any4();
    }
    if ((src instanceof Inet6Address) != (dst instanceof Inet6Address)) {
      throw new BadRequest(at + "source and " + at + "destination: one IPv4, one IPv6");
    }
    int sport = number(c, "source-port", 0, 0, 0xFFFF, at);
    int dport = number(c, "destination-port", 0, 0, 0xFFFF, at);
    int priority = number(c, "priority", 64, 0, 255, at);
    if (dst instanceof Inet4Address d4) {
      return new PcmmClassifier.Classifier(
          protocol, 0, 0, (Inet4Address) src, d4, sport, dport, priority);
    }
    // IPv6: a whole address is a /128, the unspecified address (::) any; one port, not a range
    Inet6Address s6 = (Inet6Address) src;
    Inet6Address d6 = (Inet6Address) dst;
    return new PcmmClassifier.Ipv6Classifier(
        0,
        0,
        0,
        0,
        0,
        protocol,
        s6.isAnyLocalAddress() ? 0 : 128,
        d6.isAnyLocalAddress() ? 0 : 128,
        s6,
        d6,
        sport,
        sport == 0 ? 0xFFFF : sport,
        dport,
        dport == 0 ? 0xFFFF : dport,
        id,
        priority,
        1,
        0);
  }

  private static Inet4Address any4() {
    try {
      return (Inet4Address) InetAddress.getByAddress(new byte[4]);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Inet6Address any6() {
    try {
      return (Inet6Address) InetAddress.getByAddress(new byte[16]);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int protocol(JsonNode p, String at) throws BadRequest {
    if (p.isMissingNode()) {
      throw new BadRequest(at + ": missing (expected: tcp, udp, icmp or a number 0 to 255)");
    }
    if (p.isInt() && p.asInt() >= 0 && p.asInt() <= 255) {
      return p.asInt();
    }
    Integer n = p.isTextual() ? PROTOCOLS.get(p.asText()) : null;
    if (n == null) {
      throw new BadRequest(at + ": " + p + " (expected: tcp, udp, icmp or a number 0 to 255)");
    }
    return n;
  }

  private static void known(JsonNode o, String at, Set<String> fields) throws BadRequest {
    for (Iterator<String> names = o.fieldNames(); names.hasNext(); ) {
      String n = names.next();
      if (!fields.contains(n)) {
        throw new BadRequest(
            "unknown field "
                + at
                + n
                + " (expected: "
                + String.join(", ", fields.stream().sorted().toList())
                + ")");
      }
    }
  }

  private static String text(JsonNode o, String name, String dflt) throws BadRequest {
    JsonNode v = o.path(name);
    if (v.isMissingNode() && dflt != null) {
      return dflt;
    }
    if (!v.isTextual() || v.asText().isBlank()) {
      throw new BadRequest(
          name + ": " + (v.isMissingNode() ? "missing" : v.toString()) + " (expected: a string)");
    }
    return v.asText();
  }

  private static int number(JsonNode o, String name, int dflt, int min, int max) throws BadRequest {
    return number(o, name, dflt, min, max, "");
  }

  private static int number(JsonNode o, String name, int dflt, int min, int max, String at)
      throws BadRequest {
    JsonNode v = o.path(name);
    if (v.isMissingNode()) {
      return dflt;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min || v.asInt() > max) {
      throw new BadRequest(at + name + ": " + v + " (expected: " + min + " to " + max + ")");
    }
    return v.asInt();
  }

  private static InetAddress address(JsonNode o, String name) throws BadRequest {
    return address(o, name, "");
  }

  /** A literal address, never a name to look up. */
  private static InetAddress address(JsonNode o, String name, String at) throws BadRequest {
    JsonNode v = o.path(name);
    String t = v.isTextual() ? v.asText() : "";
    if (!t.matches("[0-9A-Fa-f:.]+") || t.length() > 45) {
      throw new BadRequest(
          at
              + name
              + ": "
              + (v.isMissingNode() ? "missing" : v.toString())
              + " (expected: an IPv4 or IPv6 address)");
    }
    try {
      return InetAddress.getByName(t);
    } catch (UnknownHostException e) {
      throw new BadRequest(at + name + ": " + v + " (expected: an IPv4 or IPv6 address)");
    }
  }

  /** A gate as the API shows it. */
  static ObjectNode gate(Gate g) {
    ObjectNode o = JSON.createObjectNode();
    GateRequest r = g.request();
    o.put("cmts", g.cmts());
    o.put("gate-id", "0x" + Integer.toHexString(g.gateId()));
    o.put("subscriber", r.subscriber().address().getHostAddress());
    o.put(
        "direction",
        (r.gateSpec().flags() & PcmmObject.GateSpec.UPSTREAM) != 0 ? "upstream" : "downstream");
    if (r.trafficProfile() instanceof TrafficProfile.ServiceClassName n) {
      o.put("service-class", n.name());
    }
    o.put("state", state(g.state()));
    o.put("href", "/gates/" + g.cmts() + "/0x" + Integer.toHexString(g.gateId()));
    return o;
  }

  /** Gate State values by name. */
  static String state(int s) {
    return switch (s) {
      case PcmmObject.GateState.IDLE -> "idle";
      case PcmmObject.GateState.AUTHORIZED -> "authorized";
      case PcmmObject.GateState.RESERVED -> "reserved";
      case PcmmObject.GateState.COMMITTED -> "committed";
      default -> "state-" + s;
    };
  }

  static ArrayNode array() {
    return JSON.createArrayNode();
  }
}
