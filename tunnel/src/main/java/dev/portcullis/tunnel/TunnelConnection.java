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
    Duration lifetime) {

  /** The CHILD_SA's name within the connection. */
  public static final String CHILD = "net";

  public TunnelConnection {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(objective, "objective");
    objective.espProposals(); // refuses none and ah+esp, with the reason
    if (lifetime.isNegative() || lifetime.isZero()) {
      throw new IllegalArgumentException("tunnel lifetime: " + lifetime + " (expected: positive)");
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
        lifetime);
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
    return ViciMessage.builder()
        .put("version", "2")
        .list("local_addrs", List.of(localAddress))
        .list("remote_addrs", List.of(remoteAddress))
        .put("encap", "yes")
        .list("proposals", List.of("aes256gcm16-prfsha256-x25519", "aes128gcm16-prfsha256-x25519"))
        .section("local", local)
        .section("remote", remote)
        .section(
            "children",
            ViciMessage.builder()
                .section(
                    CHILD,
                    ViciMessage.builder()
                        .list("local_ts", List.of(localTs))
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
