package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;
import static dev.portcullis.cops.ErrorCode.MANDATORY_CLIENT_SPECIFIC_INFO_MISSING;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.CopsCodecException;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A network-access request of the Portcullis client type ({@link #CLIENT_TYPE}), carried in a
 * signaled ClientSI (C-Num 9, C-Type 1) of a REQ. Byte layout: docs/cops-wire.md.
 *
 * @param operation what is asked (mandatory)
 * @param subject who asks (mandatory), e.g. a user or host name
 * @param sessionLevel the subject's current session level, or null
 * @param categories the session's categories (may be empty)
 * @param requestedLevel the level asked for by {@link AccessOperation#CHANGE_LEVEL}, or null
 * @param extensions attributes of type 0x8000 and up, carried through untouched
 */
public record AccessRequest(
    AccessOperation operation,
    String subject,
    Integer sessionLevel,
    List<String> categories,
    InetAddress sourceAddress,
    Integer sourcePort,
    InetAddress destinationAddress,
    Integer destinationPort,
    Integer protocol,
    String service,
    AccessMode accessMode,
    Integer requestedLevel,
    Map<Integer, Bytes> extensions) {

  /** The Portcullis network-access client type, from the First Come First Served range. */
  public static final int CLIENT_TYPE = 0xC0A5;

  /** Attribute types of an access request. */
  public interface Type {
    int OPERATION = 1;
    int SUBJECT = 2;
    int SESSION_LEVEL = 3;
    int CATEGORY = 4;
    int SOURCE_ADDRESS = 5;
    int SOURCE_PORT = 6;
    int DESTINATION_ADDRESS = 7;
    int DESTINATION_PORT = 8;
    int PROTOCOL = 9;
    int SERVICE = 10;
    int ACCESS_MODE = 11;
    int REQUESTED_LEVEL = 12;
  }

  public AccessRequest {
    Objects.requireNonNull(operation, "operation");
    Objects.requireNonNull(subject, "subject");
    if (subject.isEmpty()) {
      throw new IllegalArgumentException("subject: empty (expected: a name)");
    }
    categories = Tlv.categories(categories);
    extensions = Tlv.extensions(extensions);
    check16("session level", sessionLevel);
    check16("requested level", requestedLevel);
    check16("source port", sourcePort);
    check16("destination port", destinationPort);
    if (protocol != null && (protocol < 0 || protocol > 255)) {
      throw new IllegalArgumentException("protocol: " + protocol + " (expected: 0 to 255)");
    }
  }

  private static void check16(String what, Integer v) {
    if (v != null && (v < 0 || v > 0xFFFF)) {
      throw new IllegalArgumentException(what + ": " + v + " (expected: 0 to 65535)");
    }
  }

  /** A request with only the mandatory attributes. */
  public static AccessRequest of(AccessOperation operation, String subject) {
    return new AccessRequest(
        operation, subject, null, null, null, null, null, null, null, null, null, null, null);
  }

  /** An MLS LOGIN: open {@code subject}'s session at {@code level} with {@code categories}. */
  public static AccessRequest login(String subject, int level, List<String> categories) {
    return new AccessRequest(
        AccessOperation.LOGIN,
        subject,
        level,
        categories,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /** An MLS CHANGE_LEVEL: move {@code subject}'s session to {@code level}. */
  public static AccessRequest changeLevel(String subject, int level) {
    return new AccessRequest(
        AccessOperation.CHANGE_LEVEL,
        subject,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        level,
        null);
  }

  /** An ACCESS to a named service, in {@code mode}, with no addresses. */
  public static AccessRequest access(String subject, String service, AccessMode mode) {
    return new AccessRequest(
        AccessOperation.ACCESS,
        subject,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        service,
        mode,
        null,
        null);
  }

  /** The signaled ClientSI carrying this request. */
  public ClientSI toClientSI() {
    return new ClientSI(false, encode());
  }

  /** The attribute block, in type order (categories in list order). */
  public Bytes encode() {
    Tlv.Writer w = new Tlv.Writer();
    w.u8(Type.OPERATION, operation.code());
    w.utf8(Type.SUBJECT, subject);
    if (sessionLevel != null) {
      w.u16(Type.SESSION_LEVEL, sessionLevel);
    }
    for (String c : categories) {
      w.utf8(Type.CATEGORY, c);
    }
    if (sourceAddress != null) {
      w.put(Type.SOURCE_ADDRESS, sourceAddress.getAddress());
    }
    if (sourcePort != null) {
      w.u16(Type.SOURCE_PORT, sourcePort);
    }
    if (destinationAddress != null) {
      w.put(Type.DESTINATION_ADDRESS, destinationAddress.getAddress());
    }
    if (destinationPort != null) {
      w.u16(Type.DESTINATION_PORT, destinationPort);
    }
    if (protocol != null) {
      w.u8(Type.PROTOCOL, protocol);
    }
    if (service != null) {
      w.utf8(Type.SERVICE, service);
    }
    if (accessMode != null) {
      w.u8(Type.ACCESS_MODE, accessMode.code());
    }
    if (requestedLevel != null) {
      w.u16(Type.REQUESTED_LEVEL, requestedLevel);
    }
    extensions.forEach((t, v) -> w.put(t, v.toArray()));
    return w.toBytes();
  }

  /**
   * Reads a request from a signaled ClientSI's contents.
   *
   * @throws CopsCodecException with error 5 (mandatory client-specific info missing) when the
   *     operation or subject is absent, error 3 for anything malformed; offsets are from the start
   *     of the ClientSI contents
   */
  public static AccessRequest decode(Bytes data) throws CopsCodecException {
    AccessOperation op = null;
    String subject = null;
    Integer level = null;
    Integer requested = null;
    List<String> cats = List.of();
    InetAddress src = null;
    InetAddress dst = null;
    Integer sport = null;
    Integer dport = null;
    Integer proto = null;
    String service = null;
    AccessMode mode = null;
    Map<Integer, Bytes> ext = new TreeMap<>();
    boolean[] seen = new boolean[13];
    for (TlvBlock.Attribute a : Tlv.read(data)) {
      int t = a.type();
      if (t >= Tlv.EXTENSION_BASE) {
        if (ext.put(t, a.value()) != null) {
          throw duplicate(a);
        }
        continue;
      }
      if (t < 1 || t > 12) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, a.offset(), "attribute type", t, "1 to 12, or 0x8000 and up");
      }
      if (t != Type.CATEGORY && seen[t]) {
        throw duplicate(a);
      }
      seen[t] = true;
      switch (t) {
        case Type.OPERATION:
          {
            int code = Tlv.u8(a, "operation");
            if (!AccessOperation.isDefined(code)) {
              throw CopsCodecException.at(
                  BAD_MESSAGE_FORMAT, 0, a.offset() + 4, "operation", code, "1 to 4");
            }
            op = AccessOperation.valueOf(code);
            break;
          }
        case Type.SUBJECT:
          subject = Tlv.utf8(a, "subject");
          break;
        case Type.SESSION_LEVEL:
          level = Tlv.u16(a, "session level");
          break;
        case Type.CATEGORY:
          cats = Tlv.append(cats, Tlv.utf8(a, "category"));
          break;
        case Type.SOURCE_ADDRESS:
          src = Tlv.address(a, "source address");
          break;
        case Type.SOURCE_PORT:
          sport = Tlv.u16(a, "source port");
          break;
        case Type.DESTINATION_ADDRESS:
          dst = Tlv.address(a, "destination address");
          break;
        case Type.DESTINATION_PORT:
          dport = Tlv.u16(a, "destination port");
          break;
        case Type.PROTOCOL:
          proto = Tlv.u8(a, "protocol");
          break;
        case Type.SERVICE:
          service = Tlv.utf8(a, "service");
          break;
        case Type.ACCESS_MODE:
          {
            int code = Tlv.u8(a, "access mode");
            if (!AccessMode.isDefined(code)) {
              throw CopsCodecException.at(
                  BAD_MESSAGE_FORMAT, 0, a.offset() + 4, "access mode", code, "1 to 3");
            }
            mode = AccessMode.valueOf(code);
            break;
          }
        default:
          requested = Tlv.u16(a, "requested level");
          break;
      }
    }
    if (op == null || subject == null || subject.isEmpty()) {
      throw CopsCodecException.at(
          MANDATORY_CLIENT_SPECIFIC_INFO_MISSING,
          0,
          0,
          op == null ? "operation attribute" : "subject attribute",
          "missing",
          "operation (type 1) and a non-empty subject (type 2)");
    }
    return new AccessRequest(
        op, subject, level, cats, src, sport, dst, dport, proto, service, mode, requested, ext);
  }

  static CopsCodecException duplicate(TlvBlock.Attribute a) {
    return Tlv.repeated(a);
  }
}
