package dev.portcullis.cops.access;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.DecisionData;
import dev.portcullis.cops.DecisionDataKind;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The data a PDP returns with a decision of the Portcullis client type, in a Client Specific
 * Decision Data object (C-Num 6, C-Type 4). Whether access is granted is the Decision Flags'
 * command (Install grants, Remove denies); this says why and on what terms. Every attribute is
 * optional. Byte layout: docs/cops-wire.md.
 *
 * @param ruleId the policy rule that decided
 * @param reason a human-readable explanation
 * @param grantedLevel the session level granted (LOGIN, CHANGE_LEVEL)
 * @param validForSeconds how long the PEP may cache the decision (unsigned 32-bit)
 * @param categories categories granted
 */
public record AccessDecision(
    String ruleId,
    String reason,
    Integer grantedLevel,
    Long validForSeconds,
    List<String> categories,
    Map<Integer, Bytes> extensions) {

  /** Decision data with no attribute: a decision that says nothing beyond its command. */
  public static final AccessDecision EMPTY = new AccessDecision(null, null, null, null, null, null);

  /**
   * Whether client type {@code clientType}'s decisions carry this format: every type a policy
   * engine serves (0xC0A5 rules, 0xC0A6 multilevel, and any other configured), but the Portcullis
   * types with formats of their own: enrolment (0xC0A7) and tunnels (0xC0A8).
   */
  public static boolean carriedBy(int clientType) {
    return clientType != Enrolment.CLIENT_TYPE && clientType != TunnelRequest.CLIENT_TYPE;
  }

  /** Attribute types of access decision data. */
  public interface Type {
    int RULE_ID = 1;
    int REASON = 2;
    int GRANTED_LEVEL = 3;
    int VALID_FOR = 4;
    int CATEGORY = 5;
  }

  public AccessDecision {
    categories = Tlv.categories(categories);
    extensions = Tlv.extensions(extensions);
    if (grantedLevel != null && (grantedLevel < 0 || grantedLevel > 0xFFFF)) {
      throw new IllegalArgumentException(
          "granted level: " + grantedLevel + " (expected: 0 to 65535)");
    }
    if (validForSeconds != null && (validForSeconds < 0 || validForSeconds > 0xFFFF_FFFFL)) {
      throw new IllegalArgumentException(
          "valid for: " + validForSeconds + " (expected: 0 to 4294967295 seconds)");
    }
  }

  /** The Client Specific Decision Data object carrying this. */
  public DecisionData toDecisionData() {
    return new DecisionData(false, DecisionDataKind.CLIENT_SPECIFIC, encode());
  }

  public Bytes encode() {
    Tlv.Writer w = new Tlv.Writer();
    if (ruleId != null) {
      w.utf8(Type.RULE_ID, ruleId);
    }
    if (reason != null) {
      w.utf8(Type.REASON, reason);
    }
    if (grantedLevel != null) {
      w.u16(Type.GRANTED_LEVEL, grantedLevel);
    }
    if (validForSeconds != null) {
      w.u32(Type.VALID_FOR, validForSeconds);
    }
    for (String c : categories) {
      w.utf8(Type.CATEGORY, c);
    }
    extensions.forEach((t, v) -> w.put(t, v.toArray()));
    return w.toBytes();
  }

  /** Reads decision data; offsets in errors are from the start of the object's contents. */
  public static AccessDecision decode(Bytes data) throws CopsCodecException {
    var f =
        new Object() {
          String rule;
          String reason;
          Integer level;
          Long valid;
          List<String> cats = List.of();
        };
    Map<Integer, Bytes> ext = new TreeMap<>();
    Tlv.each(
        data,
        5,
        Type.CATEGORY,
        ext,
        a -> {
          switch (a.type()) {
            case Type.RULE_ID -> f.rule = Tlv.utf8(a, "rule id");
            case Type.REASON -> f.reason = Tlv.utf8(a, "reason");
            case Type.GRANTED_LEVEL -> f.level = Tlv.u16(a, "granted level");
            case Type.VALID_FOR -> f.valid = Tlv.u32(a, "valid for");
            default -> f.cats = Tlv.append(f.cats, Tlv.utf8(a, "category"));
          }
        });
    return new AccessDecision(f.rule, f.reason, f.level, f.valid, f.cats, ext);
  }
}
