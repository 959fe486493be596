package dev.portcullis.cops.pr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionData;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Report;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * COPS-PR sub-objects, laid out as RFC 3084 section 4 draws them. Both messages below were also
 * decoded by Wireshark's COPS-PR dissector, which shows the PRID 1.3.6.1.2.2.2.1.2.1, the EPD
 * INTEGER 5, GPERR unknownPIBData, CPERR attrValueInvalid/2 and the ErrorPRID.
 */
class PrObjectsTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final String OID = "1.3.6.1.2.2.2.1.2.1";

  static byte[] hex(String s) {
    return HEX.parseHex(s.replaceAll("#[^\n]*", "").replaceAll("\\s", ""));
  }

  static final byte[] INSTALL_DEC =
      hex(
          """
          11 02 0002 0000003c          # DEC, solicited, client-type 2 (COPS-PR DiffServ), length 60
          0006 01 01 6831 0000         # Client Handle "h1"
          0008 02 01 0008 0000         # Context: configuration request
          0008 06 01 0001 0000         # Decision Flags: Install
          001c 06 05                   # Named Decision Data, length 28
          000f 01 01                   #   PRID: length 15, S-Num 1, S-Type 1 (BER)
          06 09 2b0601020202010201 00  #   OID 1.3.6.1.2.2.2.1.2.1, 1 byte padding
          0007 03 01 020105 00         #   EPD: length 7, S-Num 3 | INTEGER 5, 1 byte padding
          """);

  static final byte[] FAILURE_RPT =
      hex(
          """
          11 03 0002 0000003c          # RPT, solicited, client-type 2, length 60
          0006 01 01 6831 0000         # Client Handle "h1"
          0008 0c 01 0002 0000         # Report-Type: Failure
          0024 09 02                   # Named ClientSI, length 36
          0008 04 01 0009 0000         #   GPERR: unknownPIBData (9)
          0008 05 01 0003 0002         #   CPERR: attrValueInvalid (3), sub-code 2
          000f 06 01 06092b0601020202010201 00  # ErrorPRID
          """);

  @Test
  void installDecisionDecodesStructurallyAndReencodesToTheSameBytes() throws Exception {
    Decision dec = (Decision) CopsCodec.decode(INSTALL_DEC);
    DecisionData named = dec.decisions().get(0).named();
    List<PrObject> objs = PrObjects.decode(named.data());
    assertEquals(
        List.of(new PrObject.Prid(Ber.oid(OID)), new PrObject.Epd(Bytes.ofHex("020105"))), objs);
    assertEquals(OID, ((PrObject.Prid) objs.get(0)).dotted());
    assertEquals(named.data(), PrObjects.encode(objs));
    assertEquals(HEX.formatHex(INSTALL_DEC), HEX.formatHex(CopsCodec.encode(dec)));
  }

  @Test
  void failureReportCarriesGlobalAndClassErrors() throws Exception {
    Report rpt = (Report) CopsCodec.decode(FAILURE_RPT);
    List<PrObject> objs = PrObjects.decode(rpt.clientSI().data());
    assertEquals(
        List.of(
            new PrObject.ProvisioningError(false, 9, 0),
            new PrObject.ProvisioningError(true, 3, 2),
            new PrObject.ErrorPrid(Ber.oid(OID))),
        objs);
    assertEquals(rpt.clientSI().data(), PrObjects.encode(objs));
  }

  @Test
  void prefixPridsRoundTrip() throws Exception {
    List<PrObject> l = List.of(new PrObject.Pprid(Ber.oid("1.3.6.1.2.2.2")));
    Bytes b = PrObjects.encode(l);
    assertEquals("000c0201" + "06062b0601020202", b.toHex());
    assertEquals(l, PrObjects.decode(b));
  }

  @Test
  void malformedSubObjectsAreRejectedWithOffsets() {
    CopsCodecException e =
        assertThrows(CopsCodecException.class, () -> PrObjects.decode(Bytes.ofHex("00030101")));
    assertEquals("COPS-PR object length: 3 at offset 0 (expected: >= 4)", e.getMessage());
    CopsCodecException s =
        assertThrows(CopsCodecException.class, () -> PrObjects.decode(Bytes.ofHex("00040701")));
    assertEquals(ErrorCode.BAD_MESSAGE_FORMAT, s.error());
    CopsCodecException g =
        assertThrows(
            CopsCodecException.class, () -> PrObjects.decode(Bytes.ofHex("0006040100090000")));
    assertEquals("GPERR length", g.field());
    CopsCodecException over =
        assertThrows(CopsCodecException.class, () -> PrObjects.decode(Bytes.ofHex("0010010106")));
    assertEquals(0, over.offset());
  }

  @Test
  void berOids() {
    assertEquals("06062b0601020202", Ber.oid("1.3.6.1.2.2.2").toHex());
    assertEquals("0603883703", Ber.oid("2.999.3").toHex()); // X.690 example
    assertEquals("2.999.3", Ber.oidToString(Ber.oid("2.999.3")));
    assertNull(Ber.oidToString(Bytes.ofHex("0403aabbcc")));
    assertNull(Ber.oidToString(Bytes.ofHex("06022b86"))); // truncated arc
    assertThrows(IllegalArgumentException.class, () -> Ber.oid("3.1"));
  }
}
