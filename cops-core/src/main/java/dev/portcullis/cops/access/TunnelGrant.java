package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.DecisionData;
import dev.portcullis.cops.DecisionDataKind;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One tunnel as the PDP grants it to an agent (decision data of the tunnel client type, {@code
 * 0xC0A8}; docs/cops-wire.md, "The tunnel client type"), seen from the receiving agent: an Install
 * carries all of it, a Remove only the tunnel's id (and a reason), a refused request only the
 * reason. A DEC may carry several, one per Decision (a gateway's standing request). The pre-shared
 * key travels only over TLS and is never shown by {@link #toString}; {@link #zero} clears this copy
 * once charon has it.
 *
 * @param tunnelId the tunnel's name at both agents and both charons
 * @param localAddress the receiving agent's outer address
 * @param remoteAddress the peer's outer address
 * @param localId the receiving agent's IKE identity
 * @param remoteId the peer's
 * @param localTs what the receiving side sends into the tunnel
 * @param remoteTs what it reaches through it
 * @param objective what the tunnel protects
 * @param psk the tunnel's pre-shared key (16 to 64 bytes)
 * @param lifetimeSeconds how long the tunnel may live
 * @param reason why (a Remove's reason), or null
 * @param certificate the receiving end's certificate for this tunnel (DER X.509), certifying the
 *     one-time public key its agent sent; with {@code peerCertificate} and {@code authority} it
 *     keys the tunnel instead of a pre-shared key
 * @param peerCertificate the other end's certificate for this tunnel (DER): the one its charon
 *     trusts, and no other
 * @param authority the authority that issued both (DER)
 * @param start whether the receiving client initiates at once ({@code true}, or null: absent);
 *     {@code false}: it loads the tunnel and waits for the PDP's start, an Install naming the
 *     tunnel with {@code start} true and nothing else ({@link #start(String)}), sent once the
 *     gateway holds the tunnel
 * @param virtualIp where the client's inner prefix (one address) is a virtual IP the gateway hands
 *     out in IKE_AUTH's configuration payload: which end of it the receiving agent is; null: none
 *     (the client sends from its inner prefix as granted)
 */
public record TunnelGrant(
    String tunnelId,
    InetAddress localAddress,
    InetAddress remoteAddress,
    String localId,
    String remoteId,
    TrafficSelector localTs,
    TrafficSelector remoteTs,
    TunnelRequest.Objective objective,
    byte[] psk,
    Long lifetimeSeconds,
    String reason,
    Bytes certificate,
    Bytes peerCertificate,
    Bytes authority,
    Boolean start,
    VirtualIp virtualIp,
    Map<Integer, Bytes> extensions) {

  /** Attribute types. */
  public interface Type {
    int TUNNEL_ID = 1;
    int LOCAL_ADDRESS = 2;
    int REMOTE_ADDRESS = 3;
    int LOCAL_ID = 4;
    int REMOTE_ID = 5;
    int LOCAL_TS = 6;
    int REMOTE_TS = 7;
    int OBJECTIVE = 8;
    int PSK = 9;
    int LIFETIME = 10;
    int REASON = 11;
    int CERTIFICATE = 12;
    int PEER_CERTIFICATE = 13;
    int AUTHORITY = 14;
    int START = 15;
    int VIRTUAL_IP = 16;
  }

  /** Which end of a virtual IP the receiving agent is (attribute VIRTUAL_IP's value). */
  public enum VirtualIp {
    /**
     * 1: the client. Its local traffic selector, one address, is what the gateway will hand it: it
     * asks for a virtual IP in IKE_AUTH and sends from what it is given.
     */
    RECEIVED(1),
    /**
     * 2: the gateway. Its remote traffic selector, one address, is what it hands the client, from a
     * pool of that address alone.
     */
    HANDED_OUT(2);

    public final int code;

    VirtualIp(int code) {
      this.code = code;
    }

    /** The other end's. */
    public VirtualIp mirrored() {
      return this == RECEIVED ? HANDED_OUT : RECEIVED;
    }
  }

  public TunnelGrant {
    if (tunnelId == null && reason == null) {
      throw new NullPointerException("tunnel id (only a refusal, with its reason, has none)");
    }
    if (psk != null && (psk.length < 16 || psk.length > 64)) {
      throw new IllegalArgumentException(
          "pre-shared key: " + psk.length + " bytes (expected: 16 to 64)");
    }
    if (lifetimeSeconds != null && (lifetimeSeconds < 1 || lifetimeSeconds > 0xFFFF_FFFFL)) {
      throw new IllegalArgumentException(
          "lifetime: " + lifetimeSeconds + " (expected: 1 to 4294967295 seconds)");
    }
    if (psk != null && certificate != null) {
      throw new IllegalArgumentException(
          "a tunnel is keyed by a pre-shared key or by certificates, not both");
    }
    TrafficSelector client = virtualIp == VirtualIp.RECEIVED ? localTs : remoteTs;
    if (virtualIp != null && client != null && !client.isHost()) {
      throw new IllegalArgumentException(
          "virtual IP: the client's traffic selector "
              + client
              + " is not one address (a gateway hands out one)");
    }
    psk = psk == null ? null : psk.clone();
    extensions = Tlv.extensions(extensions);
  }

  /** A grant's fields, to copy one with changes. */
  private static final class Draft {
    String tunnelId;
    InetAddress localAddress;
    InetAddress remoteAddress;
    String localId;
    String remoteId;
    TrafficSelector localTs;
    TrafficSelector remoteTs;
    TunnelRequest.Objective objective;
    byte[] psk;
    Long lifetimeSeconds;
    String reason;
    Bytes certificate;
    Bytes peerCertificate;
    Bytes authority;
    Boolean start;
    VirtualIp virtualIp;
    Map<Integer, Bytes> extensions;

    Draft() {}

    Draft(TunnelGrant g) {
      tunnelId = g.tunnelId;
      localAddress = g.localAddress;
      remoteAddress = g.remoteAddress;
      localId = g.localId;
      remoteId = g.remoteId;
      localTs = g.localTs;
      remoteTs = g.remoteTs;
      objective = g.objective;
      psk = g.psk; // cloned by the constructor
      lifetimeSeconds = g.lifetimeSeconds;
      reason = g.reason;
      certificate = g.certificate;
      peerCertificate = g.peerCertificate;
      authority = g.authority;
      start = g.start;
      virtualIp = g.virtualIp;
      extensions = g.extensions;
    }

    TunnelGrant build() {
      return new TunnelGrant(
          tunnelId,
          localAddress,
          remoteAddress,
          localId,
          remoteId,
          localTs,
          remoteTs,
          objective,
          psk,
          lifetimeSeconds,
          reason,
          certificate,
          peerCertificate,
          authority,
          start,
          virtualIp,
          extensions);
    }
  }

  /**
   * This grant keyed by certificates instead: this end's, the peer's, and their authority's (the
   * pre-shared key, if any, is dropped).
   */
  public TunnelGrant withCertificates(Bytes own, Bytes peer, Bytes issuer) {
    Draft d = new Draft(this);
    d.psk = null;
    d.certificate = own;
    d.peerCertificate = peer;
    d.authority = issuer;
    return d.build();
  }

  /** Whether certificates key it (rather than a pre-shared key). */
  public boolean certified() {
    return certificate != null && peerCertificate != null && authority != null;
  }

  /** A Remove's data: the tunnel and why. */
  public static TunnelGrant removal(String tunnelId, String reason) {
    Draft d = new Draft();
    d.tunnelId = tunnelId;
    d.reason = reason;
    return d.build();
  }

  /** A refused request's data: no tunnel, only why. */
  public static TunnelGrant refusal(String reason) {
    Draft d = new Draft();
    d.reason = Objects.requireNonNull(reason, "reason");
    return d.build();
  }

  /** The PDP's start for held tunnel {@code tunnelId}: its client initiates now. */
  public static TunnelGrant start(String tunnelId) {
    Draft d = new Draft();
    d.tunnelId = tunnelId;
    d.start = Boolean.TRUE;
    return d.build();
  }

  /** Whether this is the PDP's start for a held tunnel (and not a tunnel to install). */
  public boolean isStart() {
    return Boolean.TRUE.equals(start) && localAddress == null && reason == null;
  }

  /** Whether an agent installing this initiates at once (else it waits for the start). */
  public boolean startsNow() {
    return start == null || start;
  }

  /** This grant with {@code start} (false: the client loads it and waits for the start). */
  public TunnelGrant withStart(boolean now) {
    Draft d = new Draft(this);
    d.start = now;
    return d.build();
  }

  /** Whether it carries all an agent needs to install the tunnel. */
  public boolean complete() {
    return tunnelId != null
        && localAddress != null
        && remoteAddress != null
        && localId != null
        && remoteId != null
        && localTs != null
        && remoteTs != null
        && objective != null
        && (psk != null || certified())
        && lifetimeSeconds != null;
  }

  /** A copy of the key (the caller zeroes it), or null. */
  @Override
  public byte[] psk() {
    return psk == null ? null : psk.clone();
  }

  /** Clears this object's copy of the key. */
  public void zero() {
    if (psk != null) {
      Arrays.fill(psk, (byte) 0);
    }
  }

  /**
   * The other agent's view of the same tunnel (same key, or the two certificates swapped; reason
   * dropped).
   */
  public TunnelGrant mirrored() {
    Draft d = new Draft(this);
    d.localAddress = remoteAddress;
    d.remoteAddress = localAddress;
    d.localId = remoteId;
    d.remoteId = localId;
    d.localTs = remoteTs;
    d.remoteTs = localTs;
    d.reason = null;
    d.certificate = peerCertificate;
    d.peerCertificate = certificate;
    d.start = null;
    d.virtualIp = virtualIp == null ? null : virtualIp.mirrored();
    return d.build();
  }

  /** The Client Specific Decision Data object carrying this. */
  public DecisionData toDecisionData() {
    return new DecisionData(false, DecisionDataKind.CLIENT_SPECIFIC, encode());
  }

  public Bytes encode() {
    Tlv.Writer w = new Tlv.Writer();
    if (tunnelId != null) {
      w.utf8(Type.TUNNEL_ID, tunnelId);
    }
    if (localAddress != null) {
      w.address(Type.LOCAL_ADDRESS, localAddress);
    }
    if (remoteAddress != null) {
      w.address(Type.REMOTE_ADDRESS, remoteAddress);
    }
    if (localId != null) {
      w.utf8(Type.LOCAL_ID, localId);
    }
    if (remoteId != null) {
      w.utf8(Type.REMOTE_ID, remoteId);
    }
    if (localTs != null) {
      w.prefix(Type.LOCAL_TS, localTs);
    }
    if (remoteTs != null) {
      w.prefix(Type.REMOTE_TS, remoteTs);
    }
    if (objective != null) {
      w.u8(Type.OBJECTIVE, objective.code);
    }
    if (psk != null) {
      w.put(Type.PSK, psk);
    }
    if (lifetimeSeconds != null) {
      w.u32(Type.LIFETIME, lifetimeSeconds);
    }
    if (reason != null) {
      w.utf8(Type.REASON, reason);
    }
    if (certificate != null) {
      w.put(Type.CERTIFICATE, certificate.toArray());
    }
    if (peerCertificate != null) {
      w.put(Type.PEER_CERTIFICATE, peerCertificate.toArray());
    }
    if (authority != null) {
      w.put(Type.AUTHORITY, authority.toArray());
    }
    if (start != null) {
      w.u8(Type.START, start ? 1 : 0);
    }
    if (virtualIp != null) {
      w.u8(Type.VIRTUAL_IP, virtualIp.code);
    }
    extensions.forEach((t, v) -> w.put(t, v.toArray()));
    return w.toBytes();
  }

  /** Reads a grant; offsets in errors are from the start of the object's contents. */
  public static TunnelGrant decode(Bytes data) throws CopsCodecException {
    var f =
        new Object() {
          String id;
          InetAddress local;
          InetAddress remote;
          String localId;
          String remoteId;
          TrafficSelector localTs;
          TrafficSelector remoteTs;
          TunnelRequest.Objective objective;
          Long lifetime;
          byte[] psk;
          String reason;
          final Bytes[] certs = new Bytes[3];
          Boolean start;
          VirtualIp virtualIp;
        };
    Map<Integer, Bytes> ext = new TreeMap<>();
    Tlv.each(
        data,
        16,
        -1,
        ext,
        a -> {
          int t = a.type();
          switch (t) {
            case Type.TUNNEL_ID -> f.id = Tlv.utf8(a, "tunnel id");
            case Type.LOCAL_ADDRESS -> f.local = Tlv.address(a, "local address");
            case Type.REMOTE_ADDRESS -> f.remote = Tlv.address(a, "remote address");
            case Type.LOCAL_ID -> f.localId = Tlv.utf8(a, "local IKE identity");
            case Type.REMOTE_ID -> f.remoteId = Tlv.utf8(a, "remote IKE identity");
            case Type.LOCAL_TS -> f.localTs = Tlv.prefix(a, "local traffic selector");
            case Type.REMOTE_TS -> f.remoteTs = Tlv.prefix(a, "remote traffic selector");
            case Type.OBJECTIVE -> f.objective = TunnelRequest.Objective.read(a);
            case Type.PSK -> {
              if (a.length() < 16 || a.length() > 64) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT,
                    0,
                    a.offset() + 2,
                    "pre-shared key length",
                    a.length(),
                    "16 to 64");
              }
              f.psk = Arrays.copyOfRange(a.block(), a.valueOffset(), a.valueOffset() + a.length());
            }
            case Type.LIFETIME -> {
              f.lifetime = Tlv.u32(a, "lifetime");
              if (f.lifetime == 0) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT,
                    0,
                    a.offset() + 4,
                    "lifetime",
                    0,
                    "1 to 4294967295 seconds");
              }
            }
            case Type.REASON -> f.reason = Tlv.utf8(a, "reason");
            case Type.START -> {
              int v = Tlv.u8(a, "start");
              if (v > 1) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT, 0, a.offset() + 4, "start", v, "0 (hold) or 1 (start)");
              }
              f.start = v == 1;
            }
            case Type.VIRTUAL_IP -> {
              int v = Tlv.u8(a, "virtual IP");
              if (v < 1 || v > 2) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT,
                    0,
                    a.offset() + 4,
                    "virtual IP",
                    v,
                    "1 (received by the client) or 2 (handed out by the gateway)");
              }
              f.virtualIp = v == 1 ? VirtualIp.RECEIVED : VirtualIp.HANDED_OUT;
            }
            default -> {
              if (a.length() == 0) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT, 0, a.offset() + 2, "certificate length", 0, "1 and up");
              }
              f.certs[t - Type.CERTIFICATE] = a.value();
            }
          }
        });
    if (f.reason == null) { // a refusal carries only its reason
      TunnelRequest.missing(f.id, "tunnel id", Type.TUNNEL_ID);
    }
    int certs = (f.certs[0] == null ? 0 : 1) + (f.certs[1] == null ? 0 : 1);
    certs += f.certs[2] == null ? 0 : 1;
    String[] wrong =
        certs % 3 != 0
            ? new String[] {
              "certificates",
              "not all three",
              "CERTIFICATE, PEER_CERTIFICATE and AUTHORITY together"
            }
            : certs == 3 && f.psk != null
                ? new String[] {"keying", "a pre-shared key and certificates", "one of the two"}
                : virtualIp(f.virtualIp, f.localTs, f.remoteTs);
    if (wrong != null) {
      if (f.psk != null) {
        Arrays.fill(f.psk, (byte) 0);
      }
      throw CopsCodecException.at(BAD_MESSAGE_FORMAT, 0, 0, wrong[0], wrong[1], wrong[2]);
    }
    TunnelGrant g =
        new TunnelGrant(
            f.id,
            f.local,
            f.remote,
            f.localId,
            f.remoteId,
            f.localTs,
            f.remoteTs,
            f.objective,
            f.psk,
            f.lifetime,
            f.reason,
            f.certs[0],
            f.certs[1],
            f.certs[2],
            f.start,
            f.virtualIp,
            ext);
    if (f.psk != null) {
      Arrays.fill(f.psk, (byte) 0); // the grant holds its own copy
    }
    return g;
  }

  /** Null, or what is wrong with a virtual IP: the client's selector is not one address. */
  private static String[] virtualIp(VirtualIp v, TrafficSelector local, TrafficSelector remote) {
    TrafficSelector client = v == VirtualIp.RECEIVED ? local : remote;
    if (v == null || client == null || client.isHost()) {
      return null;
    }
    return new String[] {
      "virtual IP's " + (v == VirtualIp.RECEIVED ? "local" : "remote") + " traffic selector",
      client.toString(),
      "one address (/32 or /128)"
    };
  }

  /** Everything but the key. */
  @Override
  public String toString() {
    return "TunnelGrant["
        + tunnelId
        + " "
        + localAddress
        + " "
        + localId
        + " "
        + localTs
        + " <-> "
        + remoteAddress
        + " "
        + remoteId
        + " "
        + remoteTs
        + ", "
        + objective
        + ", "
        + (psk != null ? "key (hidden)" : certified() ? "certificates" : "no key")
        + ", lifetime "
        + lifetimeSeconds
        + " s"
        + (start == null ? "" : start ? ", start" : ", hold")
        + (virtualIp == null ? "" : ", virtual IP " + virtualIp.name().toLowerCase(Locale.ROOT))
        + (reason == null ? "" : ", " + reason)
        + "]";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TunnelGrant g && encode().equals(g.encode());
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(tunnelId);
  }
}
