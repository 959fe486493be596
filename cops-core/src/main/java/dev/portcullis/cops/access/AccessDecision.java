package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

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
    String rule = null;
    String reason = null;
    Integer level = null;
    Long valid = null;
    List<String> cats = List.of();
    Map<Integer, Bytes> ext = new TreeMap<>();
    boolean[] seen = new boolean[6];
    for (Tlv.Attribute a : Tlv.read(data)) {
      int t = a.type();
      if (t >= Tlv.EXTENSION_BASE) {
        if (ext.put(t, a.value()) != null) {
          throw AccessRequest.duplicate(a);
        }
        continue;
      }
      if (t < 1 || t > 5) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, a.offset(), "attribute type", t, "1 to 5, or 0x8000 and up");
      }
      if (t != Type.CATEGORY && seen[t]) {
        throw AccessRequest.duplicate(a);
      }
      seen[t] = true;
      switch (t) {
        case Type.RULE_ID:
          rule = Tlv.utf8(a, "rule id");
          break;
        case Type.REASON:
          reason = Tlv.utf8(a, "reason");
          break;
        case Type.GRANTED_LEVEL:
          level = Tlv.u16(a, "granted level");
          break;
        case Type.VALID_FOR:
          valid = Tlv.u32(a, "valid for");
          break;
        default:
          cats = Tlv.append(cats, Tlv.utf8(a, "category"));
          break;
      }
    }
    return new AccessDecision(rule, reason, level, valid, cats, ext);
  }
}
