package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.CopsCodecException;
import java.net.InetAddress;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A tunnel agent's request (client type {@value #CLIENT_TYPE_HEX}, the Portcullis tunnel client
 * type; docs/cops-wire.md, "The tunnel client type", byte by byte). A <b>client</b> agent asks for
 * a tunnel for its user to a gateway at a protection objective; a <b>gateway</b> agent keeps one
 * standing request, on which the PDP installs and removes the tunnels that end at it. Attributes in
 * the framing of the access client type; types from 0x8000 are extensions, carried through.
 *
 * @param role who asks
 * @param subject the user the tunnel is for (client role; null for a gateway)
 * @param gateway the gateway asked for (client), or the gateway's own name (gateway)
 * @param outerAddress the agent's address IKE and ESP travel from
 * @param innerPrefix what the client sends into the tunnel (client role; null for a gateway)
 * @param objective what the tunnel is to protect (client role; null for a gateway)
 * @param ikeId the agent's IKE identity
 * @param credentialId the one-time credential the user presents (client role; null if none)
 */
public record TunnelRequest(
    Role role,
    String subject,
    String gateway,
    InetAddress outerAddress,
    TrafficSelector innerPrefix,
    Objective objective,
    String ikeId,
    String credentialId,
    Map<Integer, Bytes> extensions) {

  /** The Portcullis tunnel client type, from the First Come First Served range. */
  public static final int CLIENT_TYPE = 0xC0A8;

  static final String CLIENT_TYPE_HEX = "0xC0A8";

  /** Attribute types. */
  public interface Type {
    int ROLE = 1;
    int SUBJECT = 2;
    int GATEWAY = 3;
    int OUTER_ADDRESS = 4;
    int INNER_PREFIX = 5;
    int OBJECTIVE = 6;
    int IKE_ID = 7;
    int CREDENTIAL_ID = 8;
  }

  /** Who asks. */
  public enum Role {
    CLIENT(1),
    GATEWAY(2);

    final int code;

    Role(int code) {
      this.code = code;
    }
  }

  /** The protection objectives (the dynamic VPN tunnels paper's table 3). */
  public enum Objective {
    NONE(0),
    INTEGRITY(1),
    CONFIDENTIALITY(2),
    AH_AND_ESP(3);

    final int code;

    Objective(int code) {
      this.code = code;
    }

    static Objective of(int code) {
      return code >= 0 && code < values().length ? values()[code] : null;
    }
  }

  public TunnelRequest {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(gateway, "gateway");
    Objects.requireNonNull(outerAddress, "outer address");
    Objects.requireNonNull(ikeId, "IKE identity");
    if (role == Role.CLIENT) {
      Objects.requireNonNull(subject, "a client's request names its subject");
      Objects.requireNonNull(innerPrefix, "a client's request names its inner prefix");
      Objects.requireNonNull(objective, "a client's request names its protection objective");
    }
    extensions = Tlv.extensions(extensions);
  }

  /** A client agent's request for {@code subject}'s tunnel to {@code gateway}. */
  public static TunnelRequest client(
      String subject,
      String gateway,
      InetAddress outer,
      TrafficSelector inner,
      Objective objective,
      String ikeId,
      String credentialId) {
    return new TunnelRequest(
        Role.CLIENT, subject, gateway, outer, inner, objective, ikeId, credentialId, null);
  }

  /** A gateway agent's standing request for the tunnels that end at it. */
  public static TunnelRequest gateway(String name, InetAddress outer, String ikeId) {
    return new TunnelRequest(Role.GATEWAY, null, name, outer, null, null, ikeId, null, null);
  }

  /** The ClientSI object carrying this request. */
  public ClientSI toClientSI() {
    return new ClientSI(false, encode());
  }

  public Bytes encode() {
    Tlv.Writer w = new Tlv.Writer();
    w.u8(Type.ROLE, role.code);
    if (subject != null) {
      w.utf8(Type.SUBJECT, subject);
    }
    w.utf8(Type.GATEWAY, gateway);
    w.address(Type.OUTER_ADDRESS, outerAddress);
    if (innerPrefix != null) {
      w.prefix(Type.INNER_PREFIX, innerPrefix);
    }
    if (objective != null) {
      w.u8(Type.OBJECTIVE, objective.code);
    }
    w.utf8(Type.IKE_ID, ikeId);
    if (credentialId != null) {
      w.utf8(Type.CREDENTIAL_ID, credentialId);
    }
    extensions.forEach((t, v) -> w.put(t, v.toArray()));
    return w.toBytes();
  }

  /** Reads a request; offsets in errors are from the start of the object's contents. */
  public static TunnelRequest decode(Bytes data) throws CopsCodecException {
    Role role = null;
    String subject = null;
    String gateway = null;
    InetAddress outer = null;
    TrafficSelector inner = null;
    Objective objective = null;
    String ikeId = null;
    String credential = null;
    Map<Integer, Bytes> ext = new TreeMap<>();
    boolean[] seen = new boolean[9];
    for (Tlv.Attribute a : Tlv.read(data)) {
      int t = a.type();
      if (t >= Tlv.EXTENSION_BASE) {
        if (ext.put(t, a.value()) != null) {
          throw AccessRequest.duplicate(a);
        }
        continue;
      }
      if (t < 1 || t > 8) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, a.offset(), "attribute type", t, "1 to 8, or 0x8000 and up");
      }
      if (seen[t]) {
        throw AccessRequest.duplicate(a);
      }
      seen[t] = true;
      switch (t) {
        case Type.ROLE -> {
          int r = Tlv.u8(a, "role");
          if (r != 1 && r != 2) {
            throw CopsCodecException.at(
                BAD_MESSAGE_FORMAT, 0, a.offset() + 4, "role", r, "1 (client) or 2 (gateway)");
          }
          role = r == 1 ? Role.CLIENT : Role.GATEWAY;
        }
        case Type.SUBJECT -> subject = Tlv.utf8(a, "subject");
        case Type.GATEWAY -> gateway = Tlv.utf8(a, "gateway");
        case Type.OUTER_ADDRESS -> outer = Tlv.address(a, "outer address");
        case Type.INNER_PREFIX -> inner = Tlv.prefix(a, "inner prefix");
        case Type.OBJECTIVE -> {
          int o = Tlv.u8(a, "protection objective");
          objective = Objective.of(o);
          if (objective == null) {
            throw CopsCodecException.at(
                BAD_MESSAGE_FORMAT, 0, a.offset() + 4, "protection objective", o, "0 to 3");
          }
        }
        case Type.IKE_ID -> ikeId = Tlv.utf8(a, "IKE identity");
        default -> credential = Tlv.utf8(a, "credential id");
      }
    }
    missing(role, "role", Type.ROLE);
    missing(gateway, "gateway", Type.GATEWAY);
    missing(outer, "outer address", Type.OUTER_ADDRESS);
    missing(ikeId, "IKE identity", Type.IKE_ID);
    if (role == Role.CLIENT) {
      missing(subject, "subject", Type.SUBJECT);
      missing(inner, "inner prefix", Type.INNER_PREFIX);
      missing(objective, "protection objective", Type.OBJECTIVE);
    }
    return new TunnelRequest(
        role, subject, gateway, outer, inner, objective, ikeId, credential, ext);
  }

  static void missing(Object v, String name, int type) throws CopsCodecException {
    if (v == null) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, 0, name, "absent", "attribute " + type + " present");
    }
  }
}
