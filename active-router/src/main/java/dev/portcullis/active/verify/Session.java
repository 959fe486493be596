package dev.portcullis.active.verify;

import dev.portcullis.active.packet.Flow;
import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.MacKey;
import java.util.function.Supplier;

/**
 * One flow's keys at a router: the MAC key, the payload key if the flow is encrypted, and its
 * replay window. Enters the session cache only after a packet of the flow verified, lives there
 * until SET (or until evicted, leaving its high-water mark behind); its keys are wiped when it
 * leaves.
 */
public final class Session {
  private final Flow flow;
  private final int epoch;
  private final MacKey mac;
  private volatile CipherKey encryption;
  private final ReplayWindow window;

  Session(Flow flow, int epoch, MacKey mac, CipherKey encryption, ReplayWindow window) {
    this.window = window;
    this.flow = flow;
    this.epoch = epoch;
    this.mac = mac;
    this.encryption = encryption;
  }

  public Flow flow() {
    return flow;
  }

  public int epoch() {
    return epoch;
  }

  public MacKey mac() {
    return mac;
  }

  /** The payload key, or null until an encrypted packet of the flow needed it. */
  public CipherKey encryption() {
    return encryption;
  }

  synchronized CipherKey encryption(Supplier<CipherKey> derive) {
    if (encryption == null) {
      encryption = derive.get();
    }
    return encryption;
  }

  public ReplayWindow window() {
    return window;
  }

  /** Wipes the keys. */
  synchronized void destroy() {
    mac.destroy();
    if (encryption != null) {
      encryption.destroy();
    }
  }
}
