package dev.portcullis.pep.tunnel;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.access.TunnelGrant;
import dev.portcullis.tunnel.OneTimeKey;
import dev.portcullis.tunnel.TunnelInstaller;
import dev.portcullis.tunnel.TunnelKeying;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A tunnel agent's one-time keys (the dynamic VPN tunnels paper's one-time key pairs): made here,
 * each loaded into charon ahead of the tunnel it will key, its public half the only part that
 * leaves; a client's held per request until its grant comes, a gateway's sent ahead in its standing
 * request and held by public key until a certificate names one. Each key keys one tunnel and is
 * zeroed as charon gets it; one whose tunnel never comes is zeroed and unloaded. The agent's thread
 * uses it (its maps are concurrent for {@link #zeroAll} at close and the installer's callbacks).
 */
final class AgentKeys {
  /**
   * A key made here, and charon's identifier of it once loaded ahead of its tunnel: the install
   * then loads only the connection.
   */
  private record Made(OneTimeKey key, CompletableFuture<String> ahead) {}

  /**
   * A certified tunnel's keying for charon, and the identifier of its key loaded ahead (or null).
   */
  record Keyed(TunnelKeying.OneTimeKeyPair keying, String keyAhead) {}

  private final SecureRandom random;
  private final TunnelInstaller installer;
  private final Map<String, Made> byRequest = new ConcurrentHashMap<>();
  private final Map<Bytes, Made> byPublicKey = new ConcurrentHashMap<>();
  // gateway tunnels whose report brings a fresh key in place of the one they took: made when the
  // report goes, after the tunnel's own loads (a key loaded ahead would queue before them)
  private final Set<String> owed = ConcurrentHashMap.newKeySet();

  /**
   * Whether this agent's last client grant was keyed by a pre-shared key. Its next requests' keys
   * are then made (their public halves still go with the request) but not loaded into charon ahead:
   * a PSK grant unloads the key unused, so each PSK tunnel cost the client's charon a {@code
   * load-key} and an {@code unload-key} beside its set-up, on the cores the set-up needs. A
   * certified grant after it loads its key at install (what every install did before keys were
   * loaded ahead) and turns loading ahead on again.
   */
  private volatile boolean lastKeyedByPsk;

  AgentKeys(SecureRandom random, TunnelInstaller installer) {
    this.random = random;
    this.installer = installer;
  }

  /** A fresh key for client request {@code handle} (one made for it before is dropped). */
  Bytes forRequest(String handle) {
    Made k = make(!lastKeyedByPsk);
    Made before = byRequest.put(handle, k);
    if (before != null) {
      drop(before);
    }
    return Bytes.of(k.key().publicKeyInfo());
  }

  /**
   * Request {@code handle}'s grant is keyed by a pre-shared key: its key goes, and the next
   * requests' keys are not loaded ahead until a certified grant comes.
   */
  void keyedByPsk(String handle) {
    lastKeyedByPsk = true;
    dropRequest(handle);
  }

  /** Request {@code handle}'s key, no longer wanted (refused, released, keyed by a PSK). */
  void dropRequest(String handle) {
    Made k = byRequest.remove(handle);
    if (k != null) {
      drop(k);
    }
  }

  /**
   * {@code n} fresh keys for a gateway's standing request, those sent before dropped (they were for
   * a PDP that forgot them); their public halves, to send.
   */
  List<Bytes> freshGatewaySet(int n) {
    List<Made> old = List.copyOf(byPublicKey.values());
    byPublicKey.clear();
    old.forEach(this::drop);
    List<Bytes> offered = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      offered.add(gatewayKey());
    }
    return offered;
  }

  /**
   * The fresh key a gateway's report on tunnel {@code tunnelId} carries in place of the one the
   * tunnel took; null when the tunnel took none.
   */
  Bytes repay(String tunnelId) {
    return owed.remove(tunnelId) ? gatewayKey() : null;
  }

  /**
   * The one-time key this agent made for certified grant {@code g} ({@code gateway}: the one its
   * certificate names, of those sent ahead; else request {@code handle}'s, if the certificate names
   * it), with the grant's three certificates, for charon. The key is spent: zeroed here (the keying
   * holds the copy charon gets). A gateway owes a fresh key for its next report on the tunnel.
   *
   * @throws IOException when the certificate is unreadable, or for no key this agent holds
   */
  Keyed keying(String handle, boolean gateway, TunnelGrant g) throws IOException {
    Bytes certified;
    try {
      certified =
          Bytes.of(
              java.security.cert.CertificateFactory.getInstance("X.509")
                  .generateCertificate(new java.io.ByteArrayInputStream(g.certificate().toArray()))
                  .getPublicKey()
                  .getEncoded());
    } catch (java.security.cert.CertificateException e) {
      throw new IOException("tunnel " + g.tunnelId() + ": its certificate: " + e.getMessage(), e);
    }
    Made made;
    if (gateway) {
      made = byPublicKey.remove(certified);
      owed.add(g.tunnelId());
    } else {
      lastKeyedByPsk = false;
      made = byRequest.get(handle);
      if (made != null && made.key().matches(certified.toArray())) {
        byRequest.remove(handle);
      } else {
        made = null;
      }
    }
    if (made == null) {
      throw new IOException(
          "tunnel "
              + g.tunnelId()
              + ": its certificate is for no one-time key this agent made (or one used already)");
    }
    OneTimeKey k = made.key();
    String ahead = loadedAhead(made);
    try {
      return new Keyed(
          new TunnelKeying.OneTimeKeyPair(
              OneTimeKey.KEY_TYPE,
              k.pkcs8(),
              g.certificate().toArray(),
              g.authority().toArray(),
              g.peerCertificate().toArray()),
          ahead);
    } finally {
      k.zero(); // each key keys one tunnel: charon has it now, and the installer its copy
    }
  }

  /** Every key held zeroed (the agent stops; charon's copies go with the installer). */
  void zeroAll() {
    byRequest.values().forEach(m -> m.key().zero());
    byPublicKey.values().forEach(m -> m.key().zero());
  }

  /** A fresh key for a gateway's next tunnel; its public half, to send. */
  private Bytes gatewayKey() {
    Made k = make(true);
    Bytes pub = Bytes.of(k.key().publicKeyInfo());
    byPublicKey.put(pub, k);
    return pub;
  }

  /** A fresh one-time key, loaded into charon ahead of its tunnel when {@code ahead}. */
  private Made make(boolean ahead) {
    OneTimeKey k = OneTimeKey.generate(random);
    if (!ahead) {
      return new Made(k, CompletableFuture.completedFuture(null)); // the install loads it
    }
    byte[] pkcs8 = k.pkcs8();
    try {
      return new Made(k, installer.loadAhead(OneTimeKey.KEY_TYPE, pkcs8));
    } finally {
      java.util.Arrays.fill(pkcs8, (byte) 0);
    }
  }

  /** charon's identifier of {@code made}'s key if it was loaded ahead by now; else null. */
  private static String loadedAhead(Made made) {
    try {
      return made.ahead().get(5, TimeUnit.SECONDS); // loaded while the request was on its way
    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
      return null; // the install loads it itself
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** A key whose tunnel never came: zeroed here, unloaded from charon. */
  private void drop(Made made) {
    made.key().zero();
    made.ahead().thenAccept(installer::dropAhead);
  }
}
