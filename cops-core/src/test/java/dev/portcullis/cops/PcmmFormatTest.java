package dev.portcullis.cops;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.pcmm.AfterI02;
import dev.portcullis.cops.pcmm.Deviation;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmFormatException;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.PcmmObjects;
import dev.portcullis.cops.pcmm.TrafficProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PacketCable Multimedia on the wire: each object against its hand-written vector, the gate control
 * messages of docs/cops-wire.md in their COPS DEC and RPT, and reading that never trusts a length.
 */
class PcmmFormatTest {
  static List<PcmmVectors.Vector> vectors() {
    return PcmmVectors.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void eachObjectIsItsVectorByteForByte(PcmmVectors.Vector v) throws Exception {
    assertEquals(Hex.of(v.bytes()), PcmmObjects.encode(List.of(v.object())).toHex(), v.name());
    assertEquals(List.of(v.object()), PcmmObjects.decode(Bytes.of(v.bytes())), v.name());
  }

  @Test
  void theVectorsCoverEveryObjectThePackageDefines() {
    // one vector per record: a new object type without a vector fails here
    Set<Class<?>> covered = new HashSet<>();
    PcmmVectors.all().forEach(v -> covered.add(v.object().getClass()));
    assertEquals(records(PcmmObject.class), covered);
  }

  private static Set<Class<?>> records(Class<?> sealed) {
    Set<Class<?>> out = new HashSet<>();
    for (Class<?> c : sealed.getPermittedSubclasses()) {
      if (c.isRecord()) {
        out.add(c);
      } else {
        out.addAll(records(c));
      }
    }
    return out;
  }

  @Test
  void theDocsShowEveryObjectAsItsVector() throws Exception {
    Matcher m =
        Pattern.compile("<!-- pcmm object: ([^>]+?) -->\\s*```hex\\n(.*?)```", Pattern.DOTALL)
            .matcher(Files.readString(Path.of("..", "docs", "cops-wire.md")));
    Map<String, String> shown = new HashMap<>();
    while (m.find()) {
      shown.put(m.group(1), Hex.of(Hex.bytes(m.group(2))));
    }
    for (PcmmVectors.Vector v : PcmmVectors.all()) {
      assertEquals(Hex.of(v.bytes()), shown.remove(v.name()), "docs/cops-wire.md: " + v.name());
    }
    assertTrue(shown.isEmpty(), "objects in the docs without a vector: " + shown.keySet());
  }

  private static Map<String, byte[]> docs() throws Exception {
    return DocsExamplesTest.examples();
  }

  static GateMessage gateSet() {
    return GateMessage.of(
        PcmmVectors.GATE_SET,
        PcmmVectors.AMID,
        PcmmVectors.SUBSCRIBER,
        PcmmVectors.SPEC,
        PcmmVectors.SCN,
        PcmmVectors.CLASSIFIER);
  }

  @Test
  void theGateSetOfTheDocsIsThisMessageInAnUnsolicitedDec() throws Exception {
    byte[] wire = docs().get("PCMM Gate-Set DEC");
    Decision d = (Decision) CopsCodec.decode(wire);
    assertEquals(PcmmCops.CLIENT_TYPE, d.clientType());
    assertEquals(gateSet(), PcmmCops.of(d));
    assertEquals(
        Hex.of(wire), Hex.of(CopsCodec.encode(PcmmCops.decision(Handle.of("cm01"), gateSet()))));
    assertNull(gateSet().missing());
  }

  @Test
  void theSynchronisationExamplesOfTheDocsAreTheseMessages() throws Exception {
    AfterI02.Psid psid = new AfterI02.Psid(1);
    Handle h = Handle.of("cm01");
    GateMessage config =
        GateMessage.of(new PcmmObject.TransactionId(1, GateCommand.PDP_CONFIG), psid);
    GateMessage ack =
        GateMessage.of(new PcmmObject.TransactionId(1, GateCommand.PDP_CONFIG_ACK), psid);
    GateMessage request =
        GateMessage.of(
            new PcmmObject.TransactionId(2, GateCommand.SYNCH_REQUEST),
            psid,
            new AfterI02.SynchOptions(
                AfterI02.SynchOptions.COMPLETE_GATE_DATA, AfterI02.SynchOptions.FULL));
    GateMessage report =
        GateMessage.of(
            new PcmmObject.TransactionId(2, GateCommand.SYNCH_REPORT),
            PcmmVectors.AMID,
            PcmmVectors.SUBSCRIBER,
            PcmmVectors.GATE,
            PcmmVectors.SPEC,
            PcmmVectors.SCN,
            PcmmVectors.CLASSIFIER,
            new PcmmObject.GateState(PcmmObject.GateState.AUTHORIZED, 0));
    GateMessage complete =
        GateMessage.of(new PcmmObject.TransactionId(2, GateCommand.SYNCH_COMPLETE), psid);
    Map<String, byte[]> docs = docs();
    assertEquals(
        Hex.of(docs.get("PCMM PDP-Config DEC")),
        Hex.of(CopsCodec.encode(PcmmCops.decision(h, config))));
    assertEquals(
        Hex.of(docs.get("PCMM Synch-Request DEC")),
        Hex.of(CopsCodec.encode(PcmmCops.decision(h, request))));
    for (Map.Entry<String, GateMessage> e :
        Map.of(
                "PCMM PDP-Config-Ack RPT", ack,
                "PCMM Synch-Report RPT", report,
                "PCMM Synch-Complete RPT", complete)
            .entrySet()) {
      byte[] wire = docs.get(e.getKey());
      assertEquals(e.getValue(), PcmmCops.of((Report) CopsCodec.decode(wire)), e.getKey());
      assertEquals(Hex.of(wire), Hex.of(CopsCodec.encode(PcmmCops.report(h, e.getValue()))));
    }
    assertNull(config.missing());
    assertNull(request.missing());
    assertNull(report.missing());
    assertEquals(
        new PcmmObject.PacketCableError(6, 0x1101),
        GateMessage.of(new PcmmObject.TransactionId(1, GateCommand.PDP_CONFIG)).missing());
  }

  @Test
  void theAnswersOfTheDocsAreTheseMessagesInRpts() throws Exception {
    GateMessage ack =
        GateMessage.of(
            new PcmmObject.TransactionId(0x1234, GateCommand.GATE_SET_ACK),
            PcmmVectors.AMID,
            PcmmVectors.SUBSCRIBER,
            PcmmVectors.GATE);
    byte[] wire = docs().get("PCMM Gate-Set-Ack RPT");
    Report r = (Report) CopsCodec.decode(wire);
    assertEquals(ReportType.SUCCESS.code(), r.reportType().type());
    assertEquals(ack, PcmmCops.of(r));
    assertEquals(Hex.of(wire), Hex.of(CopsCodec.encode(PcmmCops.report(Handle.of("cm01"), ack))));

    GateMessage err =
        GateMessage.of(
            new PcmmObject.TransactionId(0x1235, GateCommand.GATE_SET_ERR),
            PcmmVectors.AMID,
            PcmmVectors.SUBSCRIBER,
            new PcmmObject.PacketCableError(PcmmErrorCode.UNDEFINED_SERVICE_CLASS_NAME, 0));
    wire = docs().get("PCMM Gate-Set-Err RPT");
    r = (Report) CopsCodec.decode(wire);
    assertEquals(ReportType.FAILURE.code(), r.reportType().type());
    assertEquals(err, PcmmCops.of(r));
    assertEquals(Hex.of(wire), Hex.of(CopsCodec.encode(PcmmCops.report(Handle.of("cm01"), err))));
  }

  @Test
  void aMessageWithoutWhatItsCommandRequiresIsAnsweredWithTheMissingObject() {
    GateMessage noClassifier =
        GateMessage.of(
            PcmmVectors.GATE_SET,
            PcmmVectors.AMID,
            PcmmVectors.SUBSCRIBER,
            PcmmVectors.SPEC,
            PcmmVectors.SCN);
    assertEquals(new PcmmObject.PacketCableError(6, 0x0601), noClassifier.missing());
    GateMessage delete =
        GateMessage.of(
            new PcmmObject.TransactionId(1, GateCommand.GATE_DELETE),
            PcmmVectors.AMID,
            PcmmVectors.SUBSCRIBER);
    assertEquals(new PcmmObject.PacketCableError(6, 0x0401), delete.missing());
    assertNull(GateMessage.of(new PcmmObject.TransactionId(1, 99)).missing(), "unknown command");
    assertNull(GateMessage.of(new PcmmObject.TransactionId(1, 99)).command());
  }

  private static PcmmFormatException refused(String hex) {
    return assertThrows(PcmmFormatException.class, () -> PcmmObjects.decode(PcmmVectors.hex(hex)));
  }

  @Test
  void lengthsAreNeverTrusted() {
    PcmmFormatException e = refused("0008 0101 1234");
    assertEquals(PcmmErrorCode.INVALID_OBJECT, e.error());
    assertEquals(0x0101, e.subcode());
    assertTrue(e.getMessage().contains("<= 6"), e.getMessage());
    e = refused("00080101 12340004 0002");
    assertEquals(8, e.offset(), e.getMessage());
    assertTrue(e.getMessage().contains("PCMM object header"), e.getMessage());
    e = refused("0006 0101 1234 0000");
    assertTrue(e.getMessage().contains("a multiple of 4"), e.getMessage());
    e = refused("0000 0101");
    assertTrue(e.getMessage().contains("Length of object 1/1: 0"), e.getMessage());
    e = refused("000c 0101 1234 0004 0000 0000");
    assertTrue(e.getMessage().contains("(expected: 8)"), e.getMessage());
    assertEquals(0x0101, e.subcode());
    e = refused("00080101 12340004 000c 0d01 0000 0001"); // Gate Usage Info cut short
    assertEquals(8, e.offset());
    e = refused("0010 0f01 0001 0000 0000 0000 0000 0000"); // Gate State of 16
    assertEquals(0x0f01, e.subcode());
  }

  @Test
  void fieldsAreCheckedWhereTheyAre() {
    // an envelope octet that does not match the envelopes the length holds
    PcmmFormatException e =
        refused("0020 0703 03000000 05000000 00000000 000f4240 00000be4 00000000 00000000");
    assertEquals(PcmmErrorCode.INCOMPATIBLE_ENVELOPE, e.error());
    assertEquals(4, e.offset());
    assertEquals(0x0703, e.subcode());
    // a service class name with garbage after its zero, an empty one, one of 17 characters
    e = refused("0010 0702 01000000 41420000 00000001");
    assertTrue(e.getMessage().contains("padding"), e.getMessage());
    e = refused("000c 0702 01000000 00000000");
    assertEquals(PcmmErrorCode.INVALID_FIELD_VALUE, e.error());
    e = refused("001c 0702 01000000 41424344 41424344 41424344 41424344 41424300");
    assertTrue(e.getMessage().contains("12 to 24"), e.getMessage());
    // an IPv4-mapped address where an IPv6 Subscriber ID belongs
    e = refused("0014 0302 00000000000000000000ffff0a000001");
    assertTrue(e.getMessage().contains("IPv4-mapped"), e.getMessage());
    // a flow label wider than 20 bits
    e =
        refused(
            "0040 0603 0100ffff 00112345 00114080 20010db8000100000000000000000000"
                + " 20010db8000000000000000000000010 0000ffff 138c138d 00024001 00000000");
    assertEquals(PcmmErrorCode.INVALID_FIELD_VALUE, e.error());
    assertTrue(e.getMessage().contains("Flow Label"), e.getMessage());
  }

  @Test
  void aServiceClassNameWithoutItsZeroIsReadAndToldNeverWritten() throws Exception {
    List<Deviation> told = new ArrayList<>();
    // "VoIP": four characters filling their field, as deployed CMTSs and policy servers write it
    List<PcmmObject> read =
        PcmmObjects.decode(PcmmVectors.hex("000c 0702 01000000 566f4950"), told::add);
    assertEquals(List.of(new TrafficProfile.ServiceClassName(1, "VoIP")), read);
    assertEquals(1, told.size());
    assertEquals(Deviation.UNTERMINATED_SERVICE_CLASS_NAME, told.get(0).kind());
    assertEquals(8, told.get(0).offset(), told.get(0).toString());
    // written as I02 has it: the zero, then padding to 4
    assertEquals(PcmmVectors.hex("0010 0702 01000000 566f4950 00000000"), PcmmObjects.encode(read));
    // 16 characters, the most such a peer writes (Length 24, the object's largest)
    String sixteen = "VOICE_UPSTREAM16";
    read =
        PcmmObjects.decode(
            PcmmVectors.hex("0018 0702 07000000 " + Hex.of(sixteen.getBytes(US_ASCII))), told::add);
    assertEquals(List.of(new TrafficProfile.ServiceClassName(7, sixteen)), read);
    assertEquals(2, told.size());
    // a terminated name tells nothing
    PcmmObjects.decode(PcmmVectors.hex("0010 0702 01000000 566f4950 00000000"), told::add);
    assertEquals(2, told.size());
  }

  @Test
  void theTransactionIdOfAMessageThatCannotBeReadIsStillFound() {
    Bytes broken = PcmmVectors.hex("0008 0101 1234 0005 0008 0201 0001 0203 0006 0301 0a00");
    assertThrows(PcmmFormatException.class, () -> GateMessage.decode(broken));
    assertEquals(
        new PcmmObject.TransactionId(0x1234, GateCommand.GATE_SET_ACK),
        GateMessage.leadingTransactionId(broken));
    assertNull(GateMessage.leadingTransactionId(PcmmVectors.hex("0008 0201 0001 0203")));
    assertNull(GateMessage.leadingTransactionId(PcmmVectors.hex("0008 0101 12")));
  }

  @Test
  void unknownObjectsAreKeptWholeAndPassedOn() throws Exception {
    Bytes wire =
        PcmmVectors.hex(
            "0008 0101 0001 0004 000c c802 01020304 05060708 000c 0704 01000000 00000000");
    GateMessage m = GateMessage.decode(wire);
    assertEquals(
        List.of(new PcmmObject.Unknown(200, 2, PcmmVectors.hex("0102030405060708"))), m.unknown());
    assertEquals(7, m.trafficProfile().sNum());
    assertEquals(1, m.trafficProfile().envelope());
    assertEquals(wire, m.encode());
  }

  @Test
  void aMessageBeginsWithItsTransactionId() {
    PcmmFormatException e =
        assertThrows(
            PcmmFormatException.class,
            () -> GateMessage.decode(PcmmVectors.hex("0008 0201 0001 0203 0008 0101 0001 0004")));
    assertEquals(PcmmErrorCode.MISSING_REQUIRED_OBJECT, e.error());
    assertEquals(0x0101, e.subcode());
    assertEquals(new PcmmObject.PacketCableError(6, 0x0101), e.toError());
  }

  @Test
  void gateMessagesGoTheirWay() {
    GateMessage ack = GateMessage.of(new PcmmObject.TransactionId(1, GateCommand.GATE_SET_ACK));
    assertThrows(IllegalArgumentException.class, () -> PcmmCops.decision(Handle.of("h"), ack));
    assertThrows(IllegalArgumentException.class, () -> PcmmCops.report(Handle.of("h"), gateSet()));
    Report state =
        PcmmCops.report(
            Handle.of("h"),
            GateMessage.of(
                new PcmmObject.TransactionId(0, GateCommand.GATE_REPORT_STATE),
                PcmmVectors.AMID,
                PcmmVectors.SUBSCRIBER,
                PcmmVectors.GATE,
                new PcmmObject.GateState(PcmmObject.GateState.IDLE, 3)));
    assertEquals(ReportType.ACCOUNTING.code(), state.reportType().type());
    assertTrue(!state.solicited(), "a state report answers nothing");
  }

  @Provide
  Arbitrary<byte[]> noise() {
    Arbitrary<byte[]> random = Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
    // vectors with one octet changed: mostly well-framed, so the fields' checks are reached
    Arbitrary<byte[]> mutated =
        Arbitraries.of(PcmmVectors.all())
            .flatMap(
                v ->
                    Arbitraries.integers()
                        .between(0, v.bytes().length - 1)
                        .flatMap(
                            i ->
                                Arbitraries.bytes()
                                    .map(
                                        x -> {
                                          byte[] b = v.bytes();
                                          b[i] = x;
                                          return b;
                                        })));
    return Arbitraries.oneOf(random, mutated);
  }

  @Property(tries = 3000)
  void readingAnythingEitherSucceedsOrSaysWhy(@ForAll("noise") byte[] b) throws Exception {
    List<PcmmObject> objects;
    List<Deviation> told = new ArrayList<>();
    try {
      objects = PcmmObjects.decode(Bytes.of(b), told::add);
    } catch (PcmmFormatException e) {
      assertTrue(e.offset() >= 0 && e.offset() <= b.length, e.getMessage());
      return;
    }
    // what was read writes back to something that reads the same (reserved octets become zero),
    // as the specification has it: what was read liberally is written strictly, nothing else
    List<Deviation> again = new ArrayList<>();
    assertEquals(
        objects, PcmmObjects.decode(PcmmObjects.encode(new ArrayList<>(objects)), again::add));
    long sixteen =
        objects.stream()
            .filter(
                o ->
                    o instanceof TrafficProfile.ServiceClassName n
                        && n.name().length() == TrafficProfile.ServiceClassName.MAX_READ)
            .count();
    assertEquals(
        sixteen,
        again.size(),
        "written as I02 has it, but for 16-character names (no room for a zero): " + again);
    if (told.isEmpty()) {
      assertEquals(b.length, PcmmObjects.encode(objects).length());
    }
  }
}
