package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.CopsCodecException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
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
 * @param innerPrefix what the client sends into the tunnel (client role; null for a gateway, and
 *     for a client that asks its gateway for an address from the rule's pool)
 * @param objective what the tunnel is to protect (client role; null for a gateway)
 * @param ikeId the agent's IKE identity
 * @param credentialId the one-time credential the user presents (client role; null if none)
 * @param publicKeys one-time public keys the agent made (DER SubjectPublicKeyInfo, Ed25519 or ECDSA
 *     P-256), for the PDP's authority to certify: a client's for its tunnel (at most one), a
 *     gateway's for the tunnels to come (at most {@value #MAX_PUBLIC_KEYS}); never a private key
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
    List<Bytes> publicKeys,
    Map<Integer, Bytes> extensions) {

  /** The most public keys one request carries (a gateway's standing request). */
  public static final int MAX_PUBLIC_KEYS = 256;

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
    int PUBLIC_KEY = 9;
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

    /** The objective an OBJECTIVE attribute names; error 3 at its offset for another value. */
    static Objective read(TlvBlock.Attribute a) throws CopsCodecException {
      int o = Tlv.u8(a, "protection objective");
      Objective objective = of(o);
      if (objective == null) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, a.offset() + 4, "protection objective", o, "0 to 3");
      }
      return objective;
    }
  }

  public TunnelRequest {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(gateway, "gateway");
    Objects.requireNonNull(outerAddress, "outer address");
    Objects.requireNonNull(ikeId, "IKE identity");
    if (role == Role.CLIENT) {
      Objects.requireNonNull(subject, "a client's request names its subject");
      Objects.requireNonNull(objective, "a client's request names its protection objective");
    }
    publicKeys = publicKeys == null ? List.of() : List.copyOf(publicKeys);
    if (publicKeys.size() > (role == Role.CLIENT ? 1 : MAX_PUBLIC_KEYS)) {
      throw new IllegalArgumentException(
          publicKeys.size()
              + " public keys (a "
              + (role == Role.CLIENT ? "client's request carries at most 1)" : "gateway's at most ")
              + (role == Role.CLIENT ? "" : MAX_PUBLIC_KEYS + ")"));
    }
    extensions = Tlv.extensions(extensions);
  }

  /** This request carrying {@code keys} (public keys: DER SubjectPublicKeyInfo). */
  public TunnelRequest withPublicKeys(List<Bytes> keys) {
    return new TunnelRequest(
        role,
        subject,
        gateway,
        outerAddress,
        innerPrefix,
        objective,
        ikeId,
        credentialId,
        keys,
        extensions);
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
        Role.CLIENT, subject, gateway, outer, inner, objective, ikeId, credentialId, null, null);
  }

  /** A gateway agent's standing request for the tunnels that end at it. */
  public static TunnelRequest gateway(String name, InetAddress outer, String ikeId) {
    return new TunnelRequest(Role.GATEWAY, null, name, outer, null, null, ikeId, null, null, null);
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
    for (Bytes k : publicKeys) {
      w.put(Type.PUBLIC_KEY, k.toArray());
    }
    extensions.forEach((t, v) -> w.put(t, v.toArray()));
    return w.toBytes();
  }

  /** Reads a request; offsets in errors are from the start of the object's contents. */
  public static TunnelRequest decode(Bytes data) throws CopsCodecException {
    var f =
        new Object() {
          Role role;
          String subject;
          String gateway;
          InetAddress outer;
          TrafficSelector inner;
          Objective objective;
          String ikeId;
          String credential;
          final List<Bytes> keys = new ArrayList<>();
        };
    Map<Integer, Bytes> ext = new TreeMap<>();
    Tlv.each(
        data,
        9,
        Type.PUBLIC_KEY,
        ext,
        a -> {
          int t = a.type();
          switch (t) {
            case Type.ROLE -> {
              int r = Tlv.u8(a, "role");
              if (r != 1 && r != 2) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT, 0, a.offset() + 4, "role", r, "1 (client) or 2 (gateway)");
              }
              f.role = r == 1 ? Role.CLIENT : Role.GATEWAY;
            }
            case Type.SUBJECT -> f.subject = Tlv.utf8(a, "subject");
            case Type.GATEWAY -> f.gateway = Tlv.utf8(a, "gateway");
            case Type.OUTER_ADDRESS -> f.outer = Tlv.address(a, "outer address");
            case Type.INNER_PREFIX -> f.inner = Tlv.prefix(a, "inner prefix");
            case Type.OBJECTIVE -> f.objective = Objective.read(a);
            case Type.IKE_ID -> f.ikeId = Tlv.utf8(a, "IKE identity");
            case Type.CREDENTIAL_ID -> f.credential = Tlv.utf8(a, "credential id");
            default -> {
              if (a.length() == 0 || f.keys.size() == MAX_PUBLIC_KEYS) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT,
                    0,
                    a.offset(),
                    "public key",
                    a.length() == 0 ? "empty" : "number " + (MAX_PUBLIC_KEYS + 1),
                    "1 to " + MAX_PUBLIC_KEYS + " keys of 1 byte and more");
              }
              f.keys.add(a.value());
            }
          }
        });
    missing(f.role, "role", Type.ROLE);
    missing(f.gateway, "gateway", Type.GATEWAY);
    missing(f.outer, "outer address", Type.OUTER_ADDRESS);
    missing(f.ikeId, "IKE identity", Type.IKE_ID);
    if (f.role == Role.CLIENT) {
      missing(f.subject, "subject", Type.SUBJECT);
      missing(f.objective, "protection objective", Type.OBJECTIVE);
      if (f.keys.size() > 1) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            0,
            "public keys of a client's request",
            f.keys.size(),
            "at most 1 (one tunnel, one key)");
      }
    }
    return new TunnelRequest(
        f.role,
        f.subject,
        f.gateway,
        f.outer,
        f.inner,
        f.objective,
        f.ikeId,
        f.credential,
        f.keys,
        ext);
  }

  static void missing(Object v, String name, int type) throws CopsCodecException {
    if (v == null) {
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT, 0, 0, name, "absent", "attribute " + type + " present");
    }
  }
}
