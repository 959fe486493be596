package dev.portcullis.active.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** A grant's code and epoch are read exactly or refused; 2^32 + 4 never becomes code 4. */
class SessionGrantPropertyTest {
  @Property(tries = 1000)
  void codeAndEpochAreExactOrRefused(@ForAll long code, @ForAll long epoch) {
    String json =
        "{\"user\":\"1001\",\"code\":"
            + code
            + ",\"epoch\":"
            + epoch
            + ",\"sst\":1,\"set\":2,\"source\":\"127.0.0.1\",\"destination\":\"127.0.0.1\","
            + "\"mac\":\"hmac-sha256-128\",\"macKey\":\"AAAAAAAAAAAAAAAAAAAAAA==\","
            + "\"encryptionKey\":null}";
    SessionGrant g;
    try {
      g = SessionGrant.parse(json.getBytes(StandardCharsets.UTF_8));
    } catch (IOException refused) {
      assertEquals(
          true, code < 0 || code > 0xFFFF_FFFFL || epoch < 0 || epoch > 0xFFFF_FFFFL, json);
      return;
    }
    assertEquals(code, Integer.toUnsignedLong(g.flow().code()));
    assertEquals(epoch, Integer.toUnsignedLong(g.epoch()));
    g.destroy();
  }
}
