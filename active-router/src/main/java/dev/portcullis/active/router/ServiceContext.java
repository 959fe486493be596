package dev.portcullis.active.router;

import dev.portcullis.active.packet.PacketView;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;
import dev.portcullis.active.verify.Verifier;
import java.nio.ByteBuffer;
import java.time.Clock;

/**
 * What a code's service sees of a verified packet: one per router, refilled for each packet on the
 * event loop. The payload is decrypted only for a service that reads payloads; a replacement
 * payload is kept for the router to reseal.
 */
final class ServiceContext implements PacketContext {
  private final String router;
  private final Clock clock;
  private final Verifier verifier;
  private PacketView p;
  private ActiveService service;
  private byte[] replacement;
  private ByteBuffer plaintext;
  private boolean decryptFailed;

  ServiceContext(String router, Clock clock, Verifier verifier) {
    this.router = router;
    this.clock = clock;
    this.verifier = verifier;
  }

  /** Fills the context for {@code p}, just accepted by the verifier, run by {@code service}. */
  void reset(PacketView p, ActiveService service) {
    this.p = p;
    this.service = service;
    this.replacement = null;
    this.plaintext = null;
    this.decryptFailed = false;
  }

  /** The payload the service put in place of the packet's, or null. */
  byte[] replacement() {
    return replacement;
  }

  /** True if the service read an encrypted payload that would not decrypt. */
  boolean decryptFailed() {
    return decryptFailed;
  }

  @Override
  public String router() {
    return router;
  }

  @Override
  public long user() {
    return p.user();
  }

  @Override
  public int code() {
    return p.code();
  }

  @Override
  public long sequence() {
    return p.sequence();
  }

  @Override
  public String source() {
    return p.source().getHostAddress();
  }

  @Override
  public String destination() {
    return p.destination().getHostAddress();
  }

  @Override
  public boolean encrypted() {
    return p.encrypted();
  }

  @Override
  public int payloadLength() {
    return p.payloadLength();
  }

  @Override
  public ByteBuffer payload() {
    if (plaintext == null) {
      if (p.encrypted() && service.readsPayload()) {
        ByteBuffer out = ByteBuffer.allocate(p.payloadLength());
        if (!verifier.decrypt(out)) {
          decryptFailed = true;
          out.limit(0);
        }
        plaintext = out.flip().asReadOnlyBuffer();
      } else {
        ByteBuffer b = p.buffer().duplicate();
        b.limit(p.payloadOffset() + p.payloadLength()).position(p.payloadOffset());
        plaintext = b.slice().asReadOnlyBuffer();
      }
    }
    return plaintext.duplicate();
  }

  @Override
  public void replacePayload(byte[] payload) {
    if (p.encrypted()) {
      throw new IllegalStateException(
          "an encrypted payload cannot be replaced: re-encryption would reuse a GCM nonce");
    }
    replacement = payload.clone();
  }

  @Override
  public long nowMillis() {
    return clock.millis();
  }
}
