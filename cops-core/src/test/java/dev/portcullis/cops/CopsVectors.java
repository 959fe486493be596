package dev.portcullis.cops;

import dev.portcullis.cops.pcmm.AfterI02;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import dev.portcullis.cops.pcmm.PcmmObject;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * One message of every operation, each with the bytes written by hand from the layouts of RFC 2748
 * sections 2 and 3 (and RFC 4261 section 4.1), commented field by field. The same vectors were fed
 * to Wireshark's COPS dissector (tshark 4.0) as an independent check; see docs/cops-wire.md.
 */
final class CopsVectors {
  private CopsVectors() {}

  static final int CT = 0xC0A5; // the Portcullis client type

  record Vector(String name, CopsMessage message, String hex) {
    byte[] bytes() {
      return Hex.bytes(hex);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  static final Handle H1 = Handle.of("h1");

  static List<Vector> all() {
    return List.of(
        new Vector(
            "OPN",
            ClientOpen.of(CT, "pep-1"),
            """
            10 06 c0a5   # version 1, flags 0 | op code 6 (OPN) | client-type 0xC0A5
            00000014     # message length 20
            000c 0b 01   # PEPID: length 12, C-Num 11, C-Type 1
            7065702d31   # "pep-1"
            000000       # NUL terminator and two bytes of zero padding, inside the length
            """),
        new Vector(
            "OPN with ClientSI and IPv6 LastPDPAddr",
            new ClientOpen(
                CT,
                false,
                new PepId("pep"),
                new ClientSI(false, Bytes.ofHex("0102")),
                new PdpAddress(true, ip("2001:db8::1"), 3288),
                null),
            """
            10 06 c0a5 0000 0030            # OPN, length 48
            0008 0b 01 706570 00            # PEPID "pep" NUL (exactly 4 bytes, no padding)
            0006 09 01 0102 0000            # ClientSI signaled, 2 bytes, 2 bytes padding
            0018 0e 02                      # Last PDP Address, IPv6 (C-Num 14, C-Type 2), length 24
            20010db8000000000000000000000001
            0000 0cd8                       # reserved | TCP port 3288
            """),
        new Vector(
            "OPN client-type 0 with Integrity-TLS (RFC 4261)",
            new ClientOpen(0, false, new PepId("pep"), null, null, new IntegrityTls(1)),
            """
            10 06 0000 00000018             # OPN, client-type 0, length 24
            0008 0b 01 70657000             # PEPID "pep"
            0008 10 02 0000 0001            # Integrity-TLS: C-Num 16, C-Type 2 | reserved | flags StartTLS
            """),
        new Vector(
            "CAT",
            new ClientAccept(CT, false, new KaTimer(30), new AcctTimer(60), null),
            """
            10 07 c0a5 00000018             # CAT, length 24
            0008 0a 01 0000 001e            # KA Timer: reserved | 30 s
            0008 0f 01 0000 003c            # ACCT Timer: reserved | 60 s
            """),
        new Vector(
            "REQ",
            new Request(
                CT,
                false,
                H1,
                new Context(Context.R_INCOMING, 0),
                new Interface(false, ip("10.0.0.1"), 2),
                null,
                List.of(new ClientSI(false, Bytes.ofHex("68656c6c6f"))),
                List.of(),
                null),
            """
            10 01 c0a5 00000030             # REQ, length 48
            0006 01 01 6831 0000            # Client Handle "h1", 2 bytes padding
            0008 02 01 0001 0000            # Context: R-Type 1 (incoming) | M-Type 0
            000c 03 01 0a000001 00000002    # IN-Int IPv4 10.0.0.1 | ifIndex 2
            0009 09 01 68656c6c6f 000000    # ClientSI "hello", 3 bytes padding
            """),
        new Vector(
            "REQ with OUT-Int IPv6 and an LPDP decision",
            new Request(
                CT,
                false,
                H1,
                new Context(Context.R_CONFIGURATION, 7),
                null,
                new Interface(true, ip("2001:db8::2"), 0xFFFFFFFFL),
                List.of(),
                List.of(
                    new DecisionSet(
                        new Context(Context.R_OUTGOING, 0),
                        new DecisionFlags(true, DecisionCommand.INSTALL),
                        new DecisionData(true, DecisionDataKind.STATELESS, Bytes.ofHex("aa")),
                        null,
                        null,
                        null)),
                null),
            """
            10 01 c0a5 00000048                 # REQ, length 72
            0006 01 01 6831 0000                # Client Handle "h1"
            0008 02 01 0008 0007                # Context: R-Type 8 (configuration) | M-Type 7
            0018 04 02                          # OUT-Int IPv6, length 24
            20010db8000000000000000000000002 ffffffff
            0008 02 01 0004 0000                # LPDP decision Context: R-Type 4 (outgoing)
            0008 07 01 0001 0000                # LPDP Decision Flags: Install | flags 0
            0005 07 02 aa 000000                # LPDP Stateless Data, 1 byte, 3 padding
            """),
        new Vector(
            "DEC",
            Decision.of(
                CT,
                true,
                H1,
                new DecisionSet(
                    new Context(Context.R_INCOMING, 0),
                    new DecisionFlags(false, DecisionCommand.INSTALL),
                    null,
                    null,
                    new DecisionData(
                        false, DecisionDataKind.CLIENT_SPECIFIC, Bytes.ofHex("01020304")),
                    null)),
            """
            11 02 c0a5 00000028             # DEC, solicited, length 40
            0006 01 01 6831 0000            # Client Handle "h1"
            0008 02 01 0001 0000            # Context: incoming
            0008 06 01 0001 0000            # Decision Flags: Install (1) | flags 0
            0008 06 04 01020304             # Client Specific Decision Data (C-Type 4)
            """),
        new Vector(
            "DEC with Error",
            Decision.error(CT, H1, new ErrorObject(ErrorCode.MANDATORY_OBJECT_MISSING)),
            """
            11 02 c0a5 00000018             # DEC, solicited, length 24
            0006 01 01 6831 0000            # Client Handle "h1"
            0008 08 01 0007 0000            # Error: 7 (mandatory COPS object missing) | sub-code 0
            """),
        new Vector(
            "RPT",
            new Report(CT, true, H1, new ReportTypeObject(ReportType.SUCCESS), null, null),
            """
            11 03 c0a5 00000018             # RPT, solicited, length 24
            0006 01 01 6831 0000            # Client Handle "h1"
            0008 0c 01 0001 0000            # Report-Type: Success | reserved
            """),
        new Vector(
            "DRQ",
            new DeleteRequest(CT, false, H1, new Reason(ReasonCode.MANAGEMENT), null),
            """
            10 04 c0a5 00000018             # DRQ, length 24
            0006 01 01 6831 0000            # Client Handle "h1"
            0008 05 01 0002 0000            # Reason: Management | sub-code 0
            """),
        new Vector(
            "SSQ",
            new SyncStateRequest(CT, false, null, null),
            """
            10 05 c0a5 00000008             # SSQ, no objects
            """),
        new Vector(
            "CC with PDP redirect",
            new ClientClose(
                CT,
                false,
                new ErrorObject(ErrorCode.REDIRECT_TO_PREFERRED_SERVER),
                new PdpAddress(false, ip("192.0.2.7"), 3288),
                null),
            """
            10 08 c0a5 0000001c             # CC, length 28
            0008 08 01 000c 0000            # Error: 12 (redirect to preferred server)
            000c 0d 01 c0000207 0000 0cd8   # PDP Redirect Address IPv4 192.0.2.7 | reserved | port 3288
            """),
        new Vector(
            "KA",
            new KeepAlive(false, null),
            """
            10 09 0000 00000008             # KA, client-type 0, no objects
            """),
        new Vector(
            "SSC",
            new SyncStateComplete(CT, true, H1, null),
            """
            11 0a c0a5 00000010             # SSC, solicited, length 16
            0006 01 01 6831 0000            # Client Handle "h1"
            """),
        new Vector(
            "PCMM Gate-Set DEC",
            PcmmCops.decision(Handle.of("cm01"), PcmmFormatTest.gateSet()),
            """
            10 02 800a 00000074             # DEC, unsolicited, client-type 0x800A, length 116
            0008 01 01 636d3031             # Client Handle "cm01"
            0008 02 01 0008 0000            # Context: configuration request
            0008 06 01 0001 0001            # Decision Flags: Install, Trigger Error
            0054 06 04                      # Client Specific Decision Data, length 84
            0008 0101 1234 0004             #   Transaction ID, Gate-Set
            0008 0201 0001 0203             #   AMID
            0008 0301 0a000001              #   Subscriber ID 10.0.0.1
            0010 0501 01b8fc01 00c8012c 00000000  # Gate Spec
            0010 0702 01000000 566f49505f555000   # Service Class Name "VoIP_UP"
            0018 0601 0011 0000 0a000001 c000020a 0000 13c4 40000000  # Classifier
            """),
        new Vector(
            "PCMM Gate-Report-State RPT",
            PcmmCops.report(
                Handle.of("cm01"),
                GateMessage.of(
                    new PcmmObject.TransactionId(0, GateCommand.GATE_REPORT_STATE),
                    PcmmVectors.AMID,
                    PcmmVectors.SUBSCRIBER,
                    PcmmVectors.GATE,
                    new PcmmObject.GateState(PcmmObject.GateState.COMMITTED, 0))),
            """
            10 03 800a 00000044             # RPT, unsolicited, client-type 0x800A, length 68
            0008 01 01 636d3031             # Client Handle "cm01"
            0008 0c 01 0003 0000            # Report-Type 3: Accounting
            002c 09 01                      # ClientSI (signaled), length 44
            0008 0101 0000 000f             #   Transaction ID 0, Gate-Report-State
            0008 0201 0001 0203             #   AMID
            0008 0301 0a000001              #   Subscriber ID
            0008 0401 00abcdef              #   Gate ID
            0008 0f01 0004 0000             #   Gate State: Committed
            """),
        new Vector(
            "PCMM PDP-Config DEC",
            PcmmCops.decision(
                Handle.of("cm01"),
                GateMessage.of(
                    new PcmmObject.TransactionId(1, GateCommand.PDP_CONFIG), new AfterI02.Psid(1))),
            """
            10 02 800a 00000034             # DEC, unsolicited, client-type 0x800A, length 52
            0008 01 01 636d3031             # Client Handle "cm01"
            0008 02 01 0008 0000            # Context: configuration request
            0008 06 01 0001 0001            # Decision Flags: Install, Trigger Error
            0014 06 04                      # Client Specific Decision Data, length 20
            0008 0101 0001 0011             #   Transaction ID 1, PDP-Config
            0008 1101 00000001              #   PSID 1
            """),
        new Vector(
            "PCMM Synch-Complete RPT",
            PcmmCops.report(
                Handle.of("cm01"),
                GateMessage.of(
                    new PcmmObject.TransactionId(2, GateCommand.SYNCH_COMPLETE),
                    new AfterI02.Psid(1))),
            """
            11 03 800a 0000002c             # RPT, solicited, client-type 0x800A, length 44
            0008 01 01 636d3031             # Client Handle "cm01"
            0008 0c 01 0001 0000            # Report-Type 1: Success
            0014 09 01                      # ClientSI (signaled), length 20
            0008 0101 0002 0016             #   Transaction ID 2, Synch-Complete
            0008 1101 00000001              #   PSID 1
            """));
  }
}
