package dev.portcullis.active.auth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.portcullis.active.net.Https;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.support.Numbers;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.security.auth.Destroyable;

/**
 * What the Authorization Server returns: the flow as the packets must carry it (U, SST, SET, IPs,
 * IPd, Ci), the Kci epoch, the MAC algorithm, and the session keys. Secret: sent only over TLS,
 * {@link #destroy} when done.
 */
public final class SessionGrant implements Destroyable {
  private final Flow flow;
  private final int epoch;
  private final MacAlgorithm mac;
  private final byte[] macKey;
  private final byte[] encryptionKey; // null: payloads in the clear

  public SessionGrant(Flow flow, int epoch, MacAlgorithm mac, byte[] macKey, byte[] encKey) {
    this.flow = flow;
    this.epoch = epoch;
    this.mac = mac;
    this.macKey = macKey.clone();
    this.encryptionKey = encKey == null ? null : encKey.clone();
  }

  public Flow flow() {
    return flow;
  }

  public int epoch() {
    return epoch;
  }

  public MacAlgorithm mac() {
    return mac;
  }

  public boolean encrypted() {
    return encryptionKey != null;
  }

  /** A sealer for the session's packets. */
  public PacketSealer sealer(CryptoRegistry registry) {
    return new PacketSealer(registry, flow, epoch, mac, macKey, encryptionKey);
  }

  byte[] toJson() throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("user", Long.toUnsignedString(flow.user()));
    m.put("code", Integer.toUnsignedLong(flow.code()));
    m.put("epoch", Integer.toUnsignedLong(epoch));
    m.put("sst", flow.sst());
    m.put("set", flow.set());
    m.put("source", flow.source().getHostAddress());
    m.put("destination", flow.destination().getHostAddress());
    m.put("mac", mac.label);
    m.put("macKey", Base64.getEncoder().encodeToString(macKey));
    m.put(
        "encryptionKey",
        encryptionKey == null ? null : Base64.getEncoder().encodeToString(encryptionKey));
    return Https.JSON.writeValueAsBytes(m);
  }

  /** Reads a grant as the Authorization Server sends it. */
  public static SessionGrant parse(byte[] json) throws IOException {
    try {
      JsonNode n = Https.JSON.readTree(json);
      Flow f =
          new Flow(
              Long.parseUnsignedLong(n.get("user").asText()),
              n.get("sst").asLong(),
              n.get("set").asLong(),
              InetAddress.getByName(n.get("source").asText()),
              InetAddress.getByName(n.get("destination").asText()),
              Numbers.unsigned32(n.get("code").asLong(-1), "code"));
      JsonNode enc = n.get("encryptionKey");
      return new SessionGrant(
          f,
          Numbers.unsigned32(n.get("epoch").asLong(-1), "epoch"),
          MacAlgorithm.ofLabel(n.get("mac").asText()),
          Base64.getDecoder().decode(n.get("macKey").asText()),
          enc == null || enc.isNull() ? null : Base64.getDecoder().decode(enc.asText()));
    } catch (RuntimeException e) {
      throw new IOException("unreadable session grant: " + e, e);
    }
  }

  @Override
  public void destroy() {
    Arrays.fill(macKey, (byte) 0);
    if (encryptionKey != null) {
      Arrays.fill(encryptionKey, (byte) 0);
    }
  }

  @Override
  public String toString() {
    return "SessionGrant["
        + flow
        + ", epoch "
        + Integer.toUnsignedString(epoch)
        + ", "
        + mac.label
        + (encrypted() ? ", encrypted" : "")
        + "]";
  }
}
