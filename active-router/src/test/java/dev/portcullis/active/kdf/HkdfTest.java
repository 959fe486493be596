package dev.portcullis.active.kdf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.active.Fixtures;
import dev.portcullis.active.packet.Flow;
import dev.portcullis.active.packet.MacAlgorithm;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import java.io.InputStream;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** HKDF against RFC 5869 and Wycheproof; the session KDF's binding to every flow field. */
class HkdfTest {
  private static final HexFormat HEX = HexFormat.of();

  private static byte[] h(String s) {
    return HEX.parseHex(s);
  }

  @Test
  void rfc5869SectionA1Sha256() {
    Hkdf hkdf = new Hkdf(Fixtures.registry(), Algorithm.HMAC_SHA256);
    byte[] okm =
        hkdf.derive(
            h("000102030405060708090a0b0c"),
            h("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"),
            h("f0f1f2f3f4f5f6f7f8f9"),
            42);
    assertEquals(
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
        HEX.formatHex(okm));
  }

  @Test
  void rfc5869SectionA3Sha256EmptySaltAndInfo() {
    Hkdf hkdf = new Hkdf(Fixtures.registry(), Algorithm.HMAC_SHA256);
    byte[] okm =
        hkdf.derive(
            new byte[0], h("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"), new byte[0], 42);
    assertEquals(
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8",
        HEX.formatHex(okm));
  }

  @Test
  void rfc5869SectionA4Sha1() {
    Hkdf hkdf = new Hkdf(Fixtures.registry(), Algorithm.HMAC_SHA1);
    byte[] okm =
        hkdf.derive(
            h("000102030405060708090a0b0c"),
            h("0b0b0b0b0b0b0b0b0b0b0b"),
            h("f0f1f2f3f4f5f6f7f8f9"),
            42);
    assertEquals(
        "085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2c22e422478d305f3f896",
        HEX.formatHex(okm));
  }

  @Test
  void wycheproofHkdfSha256EveryVector() throws Exception {
    Hkdf hkdf = new Hkdf(Fixtures.registry(), Algorithm.HMAC_SHA256);
    JsonNode root;
    try (InputStream in = getClass().getResourceAsStream("/wycheproof/hkdf_sha256_test.json")) {
      root = new ObjectMapper().readTree(in);
    }
    int valid = 0;
    int invalid = 0;
    for (JsonNode g : root.get("testGroups")) {
      for (JsonNode t : g.get("tests")) {
        byte[] ikm = h(t.get("ikm").asText());
        byte[] salt = h(t.get("salt").asText());
        byte[] info = h(t.get("info").asText());
        int size = t.get("size").asInt();
        String id = "tcId " + t.get("tcId").asInt();
        if (t.get("result").asText().equals("valid")) {
          assertEquals(
              t.get("okm").asText(), HEX.formatHex(hkdf.derive(salt, ikm, info, size)), id);
          valid++;
        } else {
          assertThrows(
              IllegalArgumentException.class, () -> hkdf.derive(salt, ikm, info, size), id);
          invalid++;
        }
      }
    }
    assertEquals(86, valid + invalid, "vectors in the file");
    assertNotEquals(0, invalid);
  }

  @Test
  void everyFlowFieldAndPurposeChangesTheKey() {
    SessionKdf kdf = new SessionKdf(Fixtures.registry());
    MacKey prk = kdf.prepare(new byte[32]);
    Flow base = new Flow(7, 1000, 2000, Fixtures.ip("10.0.0.1"), Fixtures.ip("10.0.0.2"), 42);
    Flow[] variants = {
      new Flow(8, 1000, 2000, Fixtures.ip("10.0.0.1"), Fixtures.ip("10.0.0.2"), 42),
      new Flow(7, 1001, 2000, Fixtures.ip("10.0.0.1"), Fixtures.ip("10.0.0.2"), 42),
      new Flow(7, 1000, 2001, Fixtures.ip("10.0.0.1"), Fixtures.ip("10.0.0.2"), 42),
      new Flow(7, 1000, 2000, Fixtures.ip("10.0.0.3"), Fixtures.ip("10.0.0.2"), 42),
      new Flow(7, 1000, 2000, Fixtures.ip("10.0.0.1"), Fixtures.ip("10.0.0.3"), 42),
      new Flow(7, 1000, 2000, Fixtures.ip("10.0.0.1"), Fixtures.ip("10.0.0.2"), 43),
      new Flow(7, 1000, 2000, Fixtures.ip("2001:db8::1"), Fixtures.ip("2001:db8::2"), 42),
    };
    byte[] k = kdf.macKey(prk, base, MacAlgorithm.HMAC_SHA256_128);
    assertArrayEquals(k, kdf.macKey(prk, base, MacAlgorithm.HMAC_SHA256_128), "deterministic");
    for (Flow v : variants) {
      assertNotEquals(
          HEX.formatHex(k),
          HEX.formatHex(kdf.macKey(prk, v, MacAlgorithm.HMAC_SHA256_128)),
          v.toString());
    }
    assertNotEquals(
        HEX.formatHex(k).substring(0, 32), HEX.formatHex(kdf.encryptionKey(prk, base)), "purpose");
    MacKey other = kdf.prepare(new byte[] {1});
    assertNotEquals(
        HEX.formatHex(k),
        HEX.formatHex(kdf.macKey(other, base, MacAlgorithm.HMAC_SHA256_128)),
        "Kci");
  }
}
