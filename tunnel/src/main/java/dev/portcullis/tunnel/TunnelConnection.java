package dev.portcullis.tunnel;

import dev.portcullis.tunnel.vici.ViciMessage;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One side's view of a tunnel, as charon loads it ({@code load-conn}): IKEv2 between the two outer
 * addresses, authenticated by a pre-shared key under the two identities, one CHILD_SA ({@code net})
 * between the traffic selectors, protected as the objective asks. ESP travels in UDP ({@code
 * encap}), as userspace ESP requires.
 *
 * @param name the connection's name at charon (one per tunnel)
 * @param localAddress this side's outer address
 * @param remoteAddress the other side's
 * @param localId this side's IKE identity
 * @param remoteId the other side's
 * @param localTs what this side sends into the tunnel (CIDR)
 * @param remoteTs what it reaches through it (CIDR)
 * @param objective what the tunnel protects (needs a tunnel)
 * @param lifetime how long the CHILD_SA lives before charon takes it down (no rekey past it)
 * @param virtualIp the client's inner address as a virtual IP, handed out by the gateway in IKE's
 *     configuration payload rather than named by the client (null: none; the client's traffic
 *     selector is its inner prefix)
 */
public record TunnelConnection(
    String name,
    String localAddress,
    String remoteAddress,
    String localId,
    String remoteId,
    String localTs,
    String remoteTs,
    ProtectionObjective objective,
    Duration lifetime,
    VirtualIp virtualIp) {

  /** The CHILD_SA's name within the connection. */
  public static final String CHILD = "net";

  /**
   * A client's inner address that its gateway hands out (RFC 7296, 3.15: the configuration
   * payload's INTERNAL_IP4_ADDRESS or INTERNAL_IP6_ADDRESS).
   *
   * @param address the one address, literal
   * @param received true at the client, which asks for a virtual IP ({@code vips}) and sends from
   *     what it is given; false at the gateway, which hands out {@code address} from a pool of it
   *     alone named after the tunnel, and reaches only it through the tunnel
   */
  public record VirtualIp(String address, boolean received) {
    public VirtualIp {
      Objects.requireNonNull(address, "virtual IP");
    }

    /** The address as a host prefix (/32 or /128). */
    public String prefix() {
      return address + (address.indexOf(':') >= 0 ? "/128" : "/32");
    }

    /** What a client asks for: any address of the same family. */
    String any() {
      return address.indexOf(':') >= 0 ? "::" : "0.0.0.0";
    }
  }

  /** A tunnel between the two prefixes, with no virtual IP. */
  public TunnelConnection(
      String name,
      String localAddress,
      String remoteAddress,
      String localId,
      String remoteId,
      String localTs,
      String remoteTs,
      ProtectionObjective objective,
      Duration lifetime) {
    this(
        name,
        localAddress,
        remoteAddress,
        localId,
        remoteId,
        localTs,
        remoteTs,
        objective,
        lifetime,
        null);
  }

  public TunnelConnection {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(objective, "objective");
    objective.espProposals(); // refuses none and ah+esp, with the reason
    if (lifetime.isNegative() || lifetime.isZero()) {
      throw new IllegalArgumentException("tunnel lifetime: " + lifetime + " (expected: positive)");
    }
    if (virtualIp != null
        && !virtualIp.prefix().equals(virtualIp.received() ? localTs : remoteTs)) {
      throw new IllegalArgumentException(
          "virtual IP "
              + virtualIp.address()
              + ": the client's traffic selector is "
              + (virtualIp.received() ? localTs : remoteTs)
              + " (expected: "
              + virtualIp.prefix()
              + ", the address alone)");
    }
  }

  /** The other side's view of the same tunnel. */
  public TunnelConnection mirrored() {
    return new TunnelConnection(
        name,
        remoteAddress,
        localAddress,
        remoteId,
        localId,
        remoteTs,
        localTs,
        objective,
        lifetime,
        virtualIp == null ? null : new VirtualIp(virtualIp.address(), !virtualIp.received()));
  }

  /**
   * The pool a gateway hands this tunnel's client its address from, as {@code load-pool} takes it:
   * named after the tunnel, holding that one address; null where this end hands out none.
   */
  public ViciMessage pool() {
    if (virtualIp == null || virtualIp.received()) {
      return null;
    }
    return ViciMessage.builder()
        .section(name, ViciMessage.builder().put("addrs", virtualIp.prefix()).build())
        .build();
  }

  /** The connection as {@code load-conn} takes it, authenticated by a pre-shared key. */
  public ViciMessage toVici() {
    return toVici(null);
  }

  /**
   * The connection as {@code load-conn} takes it: authenticated by a pre-shared key ({@code keys}
   * null, or a {@link TunnelKeying.SharedKey}: the key itself goes by {@code load-shared}), or by
   * this end's one-time key pair: its certificate sent as ours, and the peer trusted only with a
   * certificate from {@code keys}' authority for the remote identity, and only with the peer's own
   * certificate for this tunnel where {@code keys} names it (the private key goes by {@code
   * load-key}).
   */
  public ViciMessage toVici(TunnelKeying keys) {
    String seconds = Long.toString(lifetime.toSeconds());
    ViciMessage local;
    ViciMessage remote;
    if (keys instanceof TunnelKeying.OneTimeKeyPair k) {
      local =
          ViciMessage.builder()
              .put("auth", "pubkey")
              .put("id", localId)
              .binaryList("certs", List.of(k.certificate()))
              .build();
      ViciMessage.Builder r =
          ViciMessage.builder()
              .put("auth", "pubkey")
              .put("id", remoteId)
              .binaryList("cacerts", List.of(k.authority()));
      if (k.peerCertificate() != null) {
        r.binaryList("certs", List.of(k.peerCertificate())); // this certificate, no other
      }
      remote = r.build();
    } else {
      local = ViciMessage.builder().put("auth", "psk").put("id", localId).build();
      remote = ViciMessage.builder().put("auth", "psk").put("id", remoteId).build();
    }
    ViciMessage.Builder conn =
        ViciMessage.builder()
            .put("version", "2")
            .list("local_addrs", List.of(localAddress))
            .list("remote_addrs", List.of(remoteAddress))
            .put("encap", "yes");
    String ownTs = localTs;
    if (virtualIp != null && virtualIp.received()) {
      conn.list("vips", List.of(virtualIp.any()));
      ownTs = "dynamic"; // the address the gateway gives, whichever it is
    } else if (virtualIp != null) {
      conn.list("pools", List.of(name));
    }
    return conn.list(
            "proposals", List.of("aes256gcm16-prfsha256-x25519", "aes128gcm16-prfsha256-x25519"))
        .section("local", local)
        .section("remote", remote)
        .section(
            "children",
            ViciMessage.builder()
                .section(
                    CHILD,
                    ViciMessage.builder()
                        .list("local_ts", List.of(ownTs))
                        .list("remote_ts", List.of(remoteTs))
                        .list("esp_proposals", objective.espProposals())
                        .put("life_time", seconds)
                        .put("rekey_time", "0")
                        // no jitter either: its default, life_time - rekey_time, is subtracted
                        // from a rekey time of 0 and swanctl --list-sas showed "rekeying in
                        // -28102s" (issue 47)
                        .put("rand_time", "0")
                        .build())
                .build())
        .build();
  }
}
