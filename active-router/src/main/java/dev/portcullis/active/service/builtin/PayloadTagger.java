package dev.portcullis.active.service.builtin;

import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;
import dev.portcullis.support.Numbers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Appends {@code ";via=<router>"} to each clear payload, so the receiver sees the path it took
 * (encrypted payloads pass untouched: rewriting them would reuse a GCM nonce). The router re-MACs
 * the packet under the session key.
 */
public final class PayloadTagger implements ActiveService {
  private volatile int maxPayload = 1200;

  @Override
  public void configure(Map<String, String> settings) {
    String m = settings.get("max-payload");
    if (m != null) {
      // The largest UDP payload; anything else is refused with the setting's name, not wrapped.
      maxPayload = (int) Numbers.parse(m, "setting max-payload", 0, 65_507);
    }
  }

  @Override
  public boolean readsPayload() {
    return false;
  }

  @Override
  public Verdict process(PacketContext p) {
    if (p.encrypted()) {
      return Verdict.FORWARD;
    }
    byte[] tag = (";via=" + p.router()).getBytes(StandardCharsets.US_ASCII);
    ByteBuffer in = p.payload();
    if (in.remaining() + tag.length > maxPayload) {
      return Verdict.FORWARD; // full: forward as it is rather than grow past the path MTU
    }
    byte[] out = new byte[in.remaining() + tag.length];
    in.duplicate().get(out, 0, in.remaining());
    System.arraycopy(tag, 0, out, out.length - tag.length, tag.length);
    p.replacePayload(out);
    return Verdict.FORWARD;
  }
}
