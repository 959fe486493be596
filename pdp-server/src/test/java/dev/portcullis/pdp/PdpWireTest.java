package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.portcullis.pdp.policy.PolicyEngineProvider;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PDP's answers to {@link WireScript}'s session, byte for byte. The expected bytes were written
 * by the PDP before its connection became a pipeline of handlers (one class then), so this holds
 * the redesign to the wire it had: CAT with KA 30 s, the KA echo, three DECs from the rules (ssh
 * granted for an hour, telnet refused, the default), the error DEC for a missing ClientSI, and
 * nothing for RPT, DRQ, SSC and CC.
 */
class PdpWireTest {
  @TempDir Path dir;

  private static final String EXPECTED =
      String.join(
              "\n",
              List.of(
                  "1107c0a50000001000080a010000001e",
                  "1109000000000008",
                  "1102c0a50000006c000601016831000000080201000100000008060100010000004c060401000003000100076f70732d737368000002002a6f70657261746f7273206d617920726561636820746865206d616e6167656d656e74206e6574776f726b00000004000400000e10",
                  "1102c0a5000000540006010168320000000802010001000000080601000200000034060401000002000100096e6f2d74656c6e65740000000002001774656c6e6574206973206e6576657220616c6c6f77656400",
                  "1102c0a50000004c000601016833000000080201000100000008060100020000002c0604010000020001000764656661756c7400000200136e6f2072756c6520616c6c6f7773207468697300",
                  "1102c0a50000001800060101683400000008080100050000"))
          + "\n";

  @Test
  void theScriptedSessionIsAnsweredWithTheBytesOfBefore() throws Exception {
    Path rules = dir.resolve("rules.xml");
    Files.writeString(rules, WireScript.POLICY);
    PolicyEngineProvider provider =
        ServiceLoader.load(PolicyEngineProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("rules"))
            .findFirst()
            .orElseThrow();
    FakePdpContext pdp = new FakePdpContext(List.of(), 1000, 1000);
    pdp.engines.put(0xC0A5, provider.load(rules, null));
    EmbeddedChannel ch = new EmbeddedChannel(new PdpChannelInitializer(pdp, null));
    try {
      assertEquals(EXPECTED, WireScript.run(ch));
    } finally {
      ch.finishAndReleaseAll();
    }
  }
}
