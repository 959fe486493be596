package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The PEP's messages in {@link PepWireScript}'s session, byte for byte: OPN, REQ, RPT, REQ, DRQ,
 * CC. The expected bytes were written by the PEP client before it became a facade over its parts
 * (one class then), so this holds the redesign to the wire it had; one change since, on purpose:
 * the CC's error is 11, "Shutting down", where it was 10, "Unspecified".
 */
class PepWireTest {
  private static final String EXPECTED =
      String.join(
              "\n",
              List.of(
                  "1006c0a500000014000c0b0167772d3100000000",
                  "1001c0a50000003400060101683100000008020100010000001c090101000002000100010100000000020005616c696365000000",
                  "1103c0a500000018000601016831000000080c0100010000",
                  "1001c0a500000030000601016832000000080201000100000018090101000002000100010200000000020003626f6200",
                  "1004c0a50000001800060101683200000008050100040000",
                  // CC, error 11 "Shutting down" (it said 10, "Unspecified", on every normal exit)
                  "1008c0a50000001000080801000b0000"))
          + "\n";

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void theScriptedSessionSendsTheBytesOfBefore() throws Exception {
    assertEquals(EXPECTED, PepWireScript.run());
  }
}
