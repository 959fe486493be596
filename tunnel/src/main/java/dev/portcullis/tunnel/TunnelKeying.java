package dev.portcullis.tunnel;

import java.util.Arrays;
import java.util.Objects;

/**
 * How a tunnel's two ends authenticate each other in IKE: a pre-shared key for this tunnel alone,
 * or (the dynamic VPN tunnels paper's design, section 3) a one-time key pair per end, certified by
 * the domain's authority for this tunnel's identity, so that no shared secret crosses the network
 * and a stolen grant is worth nothing elsewhere. The secret parts are zeroed by {@link #zero} once
 * the tunnel no longer needs them.
 */
public sealed interface TunnelKeying {
  /** Overwrites the secret bytes this keying holds. */
  void zero();

  /** A copy, for a holder that zeroes its own. */
  TunnelKeying copy();

  /** A pre-shared key for this tunnel alone (256 bits from the PDP). */
  record SharedKey(byte[] key) implements TunnelKeying {
    public SharedKey {
      Objects.requireNonNull(key, "key");
    }

    @Override
    public void zero() {
      Arrays.fill(key, (byte) 0);
    }

    @Override
    public TunnelKeying copy() {
      return new SharedKey(key.clone());
    }

    @Override
    public String toString() {
      return "SharedKey[(hidden)]";
    }
  }

  /**
   * This end's one-time key pair: its private key (PKCS#8, DER; it never leaves the agent that made
   * it), its certificate for this tunnel's local identity (DER), the authority that certifies the
   * peer (DER), and, when known, the peer's own certificate for this tunnel (DER): charon then
   * trusts that certificate alone, not any other the authority issued for the same identity (an
   * earlier tunnel's). Without it charon trusts any certificate from the authority for the tunnel's
   * remote identity.
   *
   * @param keyType charon's name of the key's type: {@code ecdsa}, {@code ed25519} or {@code any}
   * @param peerCertificate the peer's certificate for this tunnel, or null
   */
  record OneTimeKeyPair(
      String keyType,
      byte[] privateKey,
      byte[] certificate,
      byte[] authority,
      byte[] peerCertificate)
      implements TunnelKeying {
    public OneTimeKeyPair {
      Objects.requireNonNull(keyType, "keyType");
      Objects.requireNonNull(privateKey, "privateKey");
      Objects.requireNonNull(certificate, "certificate");
      Objects.requireNonNull(authority, "authority");
    }

    /** A key pair whose peer is any holder of the authority's certificate for its identity. */
    public OneTimeKeyPair(String keyType, byte[] privateKey, byte[] certificate, byte[] authority) {
      this(keyType, privateKey, certificate, authority, null);
    }

    @Override
    public void zero() {
      Arrays.fill(privateKey, (byte) 0);
    }

    @Override
    public TunnelKeying copy() {
      return new OneTimeKeyPair(
          keyType,
          privateKey.clone(),
          certificate.clone(),
          authority.clone(),
          peerCertificate == null ? null : peerCertificate.clone());
    }

    @Override
    public String toString() {
      return "OneTimeKeyPair[" + keyType + ", private key (hidden)]";
    }
  }
}
