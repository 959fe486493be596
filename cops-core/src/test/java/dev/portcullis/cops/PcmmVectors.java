package dev.portcullis.cops;

import dev.portcullis.cops.pcmm.AfterI02;
import dev.portcullis.cops.pcmm.GateCommand;
import dev.portcullis.cops.pcmm.GateExtra;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.List;

/**
 * One vector per PCMM object, the bytes written by hand from the object layouts of
 * PKT-SP-MM-I02-040930 (and, for the objects later issues added, the layouts Wireshark's COPS
 * dissector reads), commented field by field.
 */
final class PcmmVectors {
  private PcmmVectors() {}

  record Vector(String name, PcmmObject object, String hex) {
    byte[] bytes() {
      return Hex.bytes(hex);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Octets from hex with spaces and comments. */
  static Bytes hex(String s) {
    return Bytes.of(Hex.bytes(s));
  }

  static Inet4Address ip4(String s) {
    return (Inet4Address) CopsVectors.ip(s);
  }

  static Inet6Address ip6(String s) {
    return (Inet6Address) CopsVectors.ip(s);
  }

  static final PcmmObject.TransactionId GATE_SET =
      new PcmmObject.TransactionId(0x1234, GateCommand.GATE_SET);
  static final PcmmObject.Amid AMID = new PcmmObject.Amid(1, 0x0203);
  static final PcmmObject.SubscriberId SUBSCRIBER = new PcmmObject.SubscriberId(ip4("10.0.0.1"));
  static final PcmmObject.GateId GATE = new PcmmObject.GateId(0x00abcdef);
  static final PcmmObject.GateSpec SPEC =
      new PcmmObject.GateSpec(PcmmObject.GateSpec.UPSTREAM, 0xb8, 0xfc, 1, 200, 300, 0, 0);
  static final TrafficProfile.ServiceClassName SCN =
      new TrafficProfile.ServiceClassName(TrafficProfile.AUTHORIZED, "VoIP_UP");
  static final PcmmClassifier.Classifier CLASSIFIER =
      new PcmmClassifier.Classifier(17, 0, 0, ip4("10.0.0.1"), ip4("192.0.2.10"), 0, 5060, 64);

  static List<Vector> all() {
    return List.of(
        new Vector(
            "Transaction ID",
            GATE_SET,
            """
            0008 01 01   # Length 8, S-Num 1, S-Type 1
            1234         # Transaction Identifier
            0004         # Gate Command Type 4: Gate-Set
            """),
        new Vector(
            "AMID",
            AMID,
            """
            0008 02 01   # Length 8, S-Num 2, S-Type 1
            0001         # Application Type 1
            0203         # Application Manager Tag 0x0203
            """),
        new Vector(
            "Subscriber ID, IPv4",
            SUBSCRIBER,
            """
            0008 03 01   # Length 8, S-Num 3, S-Type 1
            0a000001     # 10.0.0.1
            """),
        new Vector(
            "Subscriber ID, IPv6",
            new PcmmObject.SubscriberId(ip6("2001:db8::1")),
            """
            0014 03 02                          # Length 20, S-Num 3, S-Type 2
            20010db8000000000000000000000001    # 2001:db8::1
            """),
        new Vector(
            "Gate ID",
            GATE,
            """
            0008 04 01   # Length 8, S-Num 4, S-Type 1
            00abcdef     # Gate ID
            """),
        new Vector(
            "Gate Spec",
            SPEC,
            """
            0010 05 01   # Length 16, S-Num 5, S-Type 1
            01           # Flags: upstream, no DSCP/TOS overwrite
            b8 fc        # DSCP/TOS 0xB8 (EF), mask 0xFC
            01           # Session Class ID 1
            00c8 012c    # Timer T1 200 s, T2 300 s
            0000 0000    # Timer T3, T4: the CMTS's defaults
            """),
        new Vector(
            "Classifier",
            CLASSIFIER,
            """
            0018 06 01   # Length 24, S-Num 6, S-Type 1
            0011         # Protocol ID 17 (UDP)
            00 00        # DSCP/TOS 0, mask 0 (any)
            0a000001     # Source IP 10.0.0.1
            c000020a     # Destination IP 192.0.2.10
            0000 13c4    # Source Port any, Destination Port 5060
            40 000000    # Priority 64, three reserved octets
            """),
        new Vector(
            "Extended Classifier",
            new PcmmClassifier.ExtendedClassifier(
                6,
                0x20,
                0xfc,
                ip4("10.0.0.0"),
                ip4("255.255.255.0"),
                ip4("192.0.2.10"),
                ip4("255.255.255.255"),
                1024,
                65535,
                443,
                443,
                1,
                64,
                PcmmClassifier.ACTIVE,
                PcmmClassifier.ADD),
            """
            0028 06 02           # Length 40, S-Num 6, S-Type 2
            0006 20 fc           # Protocol ID 6 (TCP), DSCP/TOS 0x20, mask 0xFC
            0a000000 ffffff00    # Source IP 10.0.0.0, mask 255.255.255.0
            c000020a ffffffff    # Destination IP 192.0.2.10, mask 255.255.255.255
            0400 ffff            # Source Port 1024 to 65535
            01bb 01bb            # Destination Port 443 to 443
            0001 40 01           # ClassifierID 1, Priority 64, Activation State 1 (active)
            00 000000            # Action 0 (add), three reserved octets
            """),
        new Vector(
            "IPv6 Classifier",
            new PcmmClassifier.Ipv6Classifier(
                0x01,
                0x00,
                0xff,
                0xff,
                0x12345,
                17,
                64,
                128,
                ip6("2001:db8:1::"),
                ip6("2001:db8::10"),
                0,
                65535,
                5004,
                5005,
                2,
                64,
                PcmmClassifier.ACTIVE,
                PcmmClassifier.ADD),
            """
            0040 06 03                          # Length 64, S-Num 6, S-Type 3
            01 00 ff ff                         # Flags 1, tc-low 0, tc-high 0xFF, tc-mask 0xFF
            00012345                            # Flow Label 0x12345
            0011 40 80                          # Next Header 17, prefix lengths 64 and 128
            20010db8000100000000000000000000    # Source 2001:db8:1::
            20010db8000000000000000000000010    # Destination 2001:db8::10
            0000 ffff 138c 138d                 # Source Ports 0-65535, Destination 5004-5005
            0002 40 01                          # ClassifierID 2, Priority 64, active
            00 000000                           # Action add, three reserved octets
            """),
        new Vector(
            "Flow Spec",
            new TrafficProfile.FlowSpec(
                TrafficProfile.AUTHORIZED,
                2,
                List.of(
                    new TrafficProfile.FlowSpec.Envelope(1000f, 160f, 1000f, 160, 160, 1000f, 0))),
            """
            0024 07 01            # Length 36, S-Num 7, S-Type 1
            01 02 0000            # Envelope 1 (authorized), Service Number 2 (guaranteed)
            447a0000 43200000     # r 1000.0 bytes/s, b 160.0 bytes (IEEE 754 single)
            447a0000              # p 1000.0 bytes/s
            000000a0 000000a0     # m 160, M 160 bytes
            447a0000 00000000     # R 1000.0 bytes/s, S 0 microseconds
            """),
        new Vector(
            "DOCSIS Service Class Name",
            SCN,
            """
            0010 07 02            # Length 16, S-Num 7, S-Type 2
            01 000000             # Envelope 1, three reserved octets
            566f49505f5550 00     # "VoIP_UP" and its terminating zero (8 octets, no padding)
            """),
        new Vector(
            "Best Effort Service",
            new TrafficProfile.BestEffort(
                TrafficProfile.AUTHORIZED,
                List.of(new TrafficProfile.BestEffort.Envelope(5, 0, 1_000_000, 3044, 0, 0))),
            """
            0020 07 03            # Length 32, S-Num 7, S-Type 3
            01 000000             # Envelope 1, three reserved octets
            05 000000             # Traffic Priority 5, three reserved octets
            00000000              # Request/Transmission Policy 0
            000f4240 00000be4     # Maximum Sustained Rate 1,000,000 bit/s, Maximum Burst 3044
            00000000              # Minimum Reserved Rate 0
            0000 0000             # Assumed Minimum Packet Size 0, two reserved octets
            """),
        new Vector(
            "Unsolicited Grant Service",
            new TrafficProfile.UnsolicitedGrant(
                TrafficProfile.RESERVED,
                List.of(
                    new TrafficProfile.UnsolicitedGrant.Envelope(0x1ff, 232, 1, 20_000, 800),
                    new TrafficProfile.UnsolicitedGrant.Envelope(0x1ff, 232, 1, 20_000, 800))),
            """
            0028 07 06            # Length 40, S-Num 7, S-Type 6
            03 000000             # Envelope 3 (authorized and reserved)
            000001ff 00e8 01 00   # Policy 0x1FF, Grant Size 232, 1 grant per interval, reserved
            00004e20 00000320     # Nominal Grant Interval 20,000 us, Tolerated Jitter 800 us
            000001ff 00e8 01 00   # the reserved envelope, the same
            00004e20 00000320
            """),
        new Vector(
            "Downstream Service",
            new TrafficProfile.Downstream(
                TrafficProfile.AUTHORIZED,
                List.of(
                    new TrafficProfile.Downstream.Envelope(
                        3, 2_000_000, 3044, 64_000, 200, 10_000))),
            """
            0020 07 08            # Length 32, S-Num 7, S-Type 8
            01 000000             # Envelope 1, three reserved octets
            03 000000             # Traffic Priority 3, three reserved octets
            001e8480 00000be4     # Maximum Sustained Rate 2,000,000, Maximum Burst 3044
            0000fa00              # Minimum Reserved Rate 64,000
            00c8 0000             # Assumed Minimum Packet Size 200, two reserved octets
            00002710              # Maximum Downstream Latency 10,000 us
            """),
        new Vector(
            "UGS with Activity Detection, kept as octets",
            new TrafficProfile.Other(
                7, hex("01000000 000001ff 00e80100 00004e20 00000320 00002710 00000320")),
            """
            0020 07 07            # Length 32, S-Num 7, S-Type 7: read as far as its Envelope
            01 000000             # Envelope 1
            000001ff 00e8 01 00   # the envelope's 24 octets, passed on as they are
            00004e20 00000320
            00002710 00000320
            """),
        new Vector(
            "Event Generation Info",
            new GateExtra.EventGenerationInfo(
                ip4("192.0.2.50"),
                1813,
                ip4("192.0.2.51"),
                1813,
                hex("5f5e1000434d5453303120202b3030303030303000000001")),
            """
            002c 08 01               # Length 44, S-Num 8, S-Type 1
            c0000232 0715 0000       # Primary RKS 192.0.2.50 port 1813, two reserved octets
            c0000233 0715 0000       # Secondary RKS 192.0.2.51 port 1813, two reserved octets
            5f5e1000                 # Billing Correlation ID: timestamp
            434d545330312020         #   element ID "CMTS01  "
            2b30303030303030         #   time zone "+0000000"
            00000001                 #   event counter 1
            """),
        new Vector(
            "Volume-Based Usage Limit",
            new GateExtra.VolumeBasedUsageLimit(1_048_576),
            """
            000c 09 01           # Length 12, S-Num 9, S-Type 1
            0000000000100000     # 1,048,576 kilobytes
            """),
        new Vector(
            "Time-Based Usage Limit",
            new GateExtra.TimeBasedUsageLimit(3600),
            """
            0008 0a 01   # Length 8, S-Num 10, S-Type 1
            00000e10     # 3600 s
            """),
        new Vector(
            "Opaque Data",
            new GateExtra.OpaqueData(hex("706f727463756c6c69730000")),
            """
            0010 0b 01                  # Length 16, S-Num 11, S-Type 1
            706f727463756c6c69730000    # the application manager's 12 octets
            """),
        new Vector(
            "Gate Time Info",
            new PcmmObject.GateTimeInfo(120),
            """
            0008 0c 01   # Length 8, S-Num 12, S-Type 1
            00000078     # committed for 120 s
            """),
        new Vector(
            "Gate Usage Info, 32 bits (I02)",
            new PcmmObject.GateUsageInfo(123_456, false),
            """
            0008 0d 01   # Length 8, S-Num 13, S-Type 1
            0001e240     # 123,456 octets
            """),
        new Vector(
            "Gate Usage Info, 64 bits",
            new PcmmObject.GateUsageInfo(5_000_000_000L, true),
            """
            000c 0d 01           # Length 12, S-Num 13, S-Type 1
            000000012a05f200     # 5,000,000,000 octets
            """),
        new Vector(
            "PacketCable Error",
            new PcmmObject.PacketCableError(6, 0x0701),
            """
            0008 0e 01   # Length 8, S-Num 14, S-Type 1
            0006         # Error-Code 6: Missing Required Object
            0701         # Error-Subcode: the object 7/1 (Flow Spec)
            """),
        new Vector(
            "Gate State",
            new PcmmObject.GateState(PcmmObject.GateState.COMMITTED, 0),
            """
            0008 0f 01   # Length 8, S-Num 15, S-Type 1
            0004 0000    # State 4 (Committed), Reason 0
            """),
        new Vector(
            "Version Info",
            new PcmmObject.VersionInfo(1, 0),
            """
            0008 10 01   # Length 8, S-Num 16, S-Type 1
            0001 0000    # Major 1, Minor 0
            """),
        new Vector(
            "PSID",
            new AfterI02.Psid(7),
            """
            0008 11 01   # Length 8, S-Num 17, S-Type 1
            00000007     # PSID 7
            """),
        new Vector(
            "Synch Options",
            new AfterI02.SynchOptions(0, 1),
            """
            0008 12 01   # Length 8, S-Num 18, S-Type 1
            0000 00 01   # two reserved octets, Report Type 0 (standard), Synch Type 1 (incremental)
            """),
        new Vector(
            "Msg Receipt Key",
            new AfterI02.MsgReceiptKey(0xdeadbeef),
            """
            0008 13 01   # Length 8, S-Num 19, S-Type 1
            deadbeef     # key
            """),
        new Vector(
            "an unknown object",
            new PcmmObject.Unknown(200, 1, hex("01020304")),
            """
            0008 c8 01   # Length 8, S-Num 200, S-Type 1: not defined, kept whole
            01020304
            """));
  }
}
