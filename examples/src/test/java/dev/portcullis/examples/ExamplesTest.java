package dev.portcullis.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.verify.Outcome;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Runs every example as its main method would, and checks what it reports. */
@Timeout(60)
class ExamplesTest {
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

  private String printed() {
    return printed.toString(StandardCharsets.UTF_8);
  }

  @Test
  void embeddedPepLetsInAndShutsOutWhenThePdpTakesTheGrantBack() throws Exception {
    assertEquals(Map.of("bob", "bob"), EmbeddedPep.run(out));
    assertTrue(printed().contains("mallory refused: no rule allows this"), printed());
    assertTrue(printed().contains("PDP took alice's grant back"), printed());
  }

  @Test
  void embeddedPdpServesItsOwnEnginesOneOfThemAsynchronous() throws Exception {
    assertEquals(EmbeddedPdp.EXPECTED, EmbeddedPdp.run(out));
  }

  @Test
  void registryHmacKeysFollowAProviderSwitch() throws Exception {
    List<String> served = RegistryHmac.run(out);
    assertEquals("SunJCE", served.get(0));
    assertEquals("BC", served.get(1));
    assertTrue(List.of("PortcullisNative", "SunJCE").contains(served.get(2)), served.toString());
  }

  @Test
  void aPcmmPolicyServerSetsGatesWithinPolicyAndRevokesThem() throws Exception {
    assertEquals(
        List.of(
            "gate-allowed",
            "gate-set",
            "gate-allowed",
            "gate-set",
            "gate-refused",
            "gate-deleted",
            "gate-deleted"),
        PcmmGates.run(out));
    assertTrue(
        printed().contains("third gate refused") && printed().contains("limit 2"), printed());
    assertTrue(printed().contains("2 gates deleted"), printed());
    assertTrue(printed().contains("gates left on the CMTSs: 0"), printed());
    assertTrue(printed().contains("intact, 7 records"), printed());
  }

  @Test
  void theVerifierAloneAcceptsSealedPacketsAndDropsForgeries() throws Exception {
    List<Outcome> outcomes = ActivePacketCheck.run(out);
    assertEquals(ActivePacketCheck.EXPECTED, outcomes);
    assertTrue(printed().contains("sessions derived: 1"), printed());
  }
}
