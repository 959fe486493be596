package dev.portcullis.active;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.portcullis.active.kdf.SessionKdf;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.active.packet.PacketSealer;
import dev.portcullis.active.verify.FlowKeys;
import dev.portcullis.active.verify.Outcome;
import dev.portcullis.active.verify.Verifier;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.support.ManualClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The hex examples in docs/active-packets.md are what this code computes from the inputs the
 * document states, and the packets verify.
 */
class DocsExamplesTest {
  private static final HexFormat HEX = HexFormat.of();
  static final byte[] KCI =
      HEX.parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  static final long SST = 1_795_300_000L;
  static final long SET = 1_795_303_600L;

  /** Every block after a {@code <!-- example: name -->} line, whitespace removed. */
  static Map<String, String> examples() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "active-packets.md"));
    Matcher m =
        Pattern.compile("<!-- example: ([a-z0-9-]+) -->\\s*```[a-z]*\\n(.*?)```", Pattern.DOTALL)
            .matcher(doc);
    Map<String, String> out = new LinkedHashMap<>();
    while (m.find()) {
      out.put(m.group(1), m.group(2).replaceAll("(?m)#.*$", "").replaceAll("\\s", ""));
    }
    return out;
  }

  static Map<String, String> computed() {
    Map<String, String> out = new LinkedHashMap<>();
    SessionKdf kdf = new SessionKdf(Fixtures.registry());
    MacKey prk = kdf.prepare(KCI);
    Flow v4 = new Flow(1001, SST, SET, Fixtures.ip("192.0.2.1"), Fixtures.ip("198.51.100.7"), 2);
    out.put("info-v4", HEX.formatHex(SessionKdf.info(v4, "mac-hmac-sha256-128")));
    byte[] k = kdf.macKey(prk, v4, MacAlgorithm.HMAC_SHA256_128);
    out.put("key-v4", HEX.formatHex(k));
    PacketSealer s =
        new PacketSealer(Fixtures.registry(), v4, 7, MacAlgorithm.HMAC_SHA256_128, k, null);
    out.put("packet-v4", HEX.formatHex(s.seal("hello".getBytes(StandardCharsets.US_ASCII))));
    Flow v6 = new Flow(1001, SST, SET, Fixtures.ip("2001:db8::1"), Fixtures.ip("2001:db8::2"), 2);
    PacketSealer e =
        new PacketSealer(
            Fixtures.registry(),
            v6,
            7,
            MacAlgorithm.HMAC_SHA256_128,
            kdf.macKey(prk, v6, MacAlgorithm.HMAC_SHA256_128),
            kdf.encryptionKey(prk, v6));
    out.put("key-enc-v6", HEX.formatHex(kdf.encryptionKey(prk, v6)));
    out.put(
        "packet-v6-encrypted",
        HEX.formatHex(e.seal(5, "hello".getBytes(StandardCharsets.US_ASCII))));
    prk.destroy();
    return out;
  }

  @Test
  void theDocumentsHexIsWhatTheCodeComputes() throws Exception {
    Map<String, String> c = computed();
    Map<String, String> d = examples();
    StringBuilder all = new StringBuilder();
    c.forEach((k, v) -> all.append(k).append(": ").append(v).append('\n'));
    assertEquals(c.keySet(), d.keySet(), "examples in the document\n" + all);
    for (String k : c.keySet()) {
      assertEquals(c.get(k), d.get(k), k + "\n" + all);
    }
  }

  @Test
  void theDocumentedPacketsVerify() throws Exception {
    Map<String, String> d = examples();
    ManualClock clock = new ManualClock(SST + 10);
    try (FlowKeys keys =
        new FlowKeys(
            Fixtures.registry(),
            new Fixtures.SecretMap().put(2, 7, KCI),
            clock,
            5,
            FlowKeys.Settings.DEFAULT)) {
      Verifier v = new Verifier(keys, EnumSet.allOf(MacAlgorithm.class));
      for (String name : new String[] {"packet-v4", "packet-v6-encrypted"}) {
        byte[] p = HEX.parseHex(d.get(name));
        Outcome o = v.verify(ByteBuffer.wrap(p), 0, p.length).outcome();
        if (o == Outcome.PENDING) { // the first asks for Kci; the map answers at once
          o = v.verify(ByteBuffer.wrap(p), 0, p.length).outcome();
        }
        assertEquals(Outcome.ACCEPTED, o, name);
      }
    }
  }
}
