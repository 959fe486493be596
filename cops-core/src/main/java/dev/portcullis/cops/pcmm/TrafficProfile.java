package dev.portcullis.cops.pcmm;

import dev.portcullis.cops.Bytes;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Traffic Profiles (S-Num 7): the QoS a gate authorizes. Each begins with an Envelope octet (bit 0
 * Authorized, bit 1 Reserved, bit 2 Committed) and three reserved octets (Flow Spec: the Service
 * Number and two reserved), followed by one envelope of parameters per bit set: 1 (authorized), 3
 * (and reserved) or 7 (and committed). Envelope layouts are those of I02.
 */
public sealed interface TrafficProfile extends PcmmObject
    permits TrafficProfile.FlowSpec,
        TrafficProfile.ServiceClassName,
        TrafficProfile.BestEffort,
        TrafficProfile.UnsolicitedGrant,
        TrafficProfile.Downstream,
        TrafficProfile.Other {

  int AUTHORIZED = 1;
  int RESERVED = 3;
  int COMMITTED = 7;

  /** The Envelope octet. */
  int envelope();

  @Override
  default int sNum() {
    return SNum.TRAFFIC_PROFILE;
  }

  /** Checks that {@code envelopes} has one entry per bit of {@code envelope}. */
  private static <E> List<E> envelopes(String what, int envelope, List<E> envelopes) {
    List<E> l = List.copyOf(envelopes);
    if (envelope != AUTHORIZED && envelope != RESERVED && envelope != COMMITTED) {
      throw new IllegalArgumentException(
          what + " Envelope: " + envelope + " (expected: 1, 3 or 7)");
    }
    if (l.size() != Integer.bitCount(envelope)) {
      throw new IllegalArgumentException(
          what
              + ": "
              + l.size()
              + " envelopes for Envelope "
              + envelope
              + " (expected: "
              + Integer.bitCount(envelope)
              + ")");
    }
    return l;
  }

  /**
   * Flow Spec (7/1): Envelope, Service Number (2 Guaranteed, 5 Controlled Load), two reserved
   * octets; each envelope RFC 2210's token bucket: r, b, p (IEEE 754 single), m, M (32 bits), R
   * (single), S (32 bits). 28 octets an envelope.
   */
  record FlowSpec(int envelope, int serviceNumber, List<FlowSpec.Envelope> envelopes)
      implements TrafficProfile {
    public FlowSpec {
      Fields.u8("Service Number", serviceNumber);
      envelopes = TrafficProfile.envelopes("Flow Spec", envelope, envelopes);
    }

    /** One envelope: the token bucket and the guaranteed rate and slack. */
    public record Envelope(
        float tokenRate,
        float bucketSize,
        float peakRate,
        long minimumPolicedUnit,
        long maximumPacketSize,
        float rate,
        long slackTerm) {
      public Envelope {
        Fields.u32("Minimum Policed Unit", minimumPolicedUnit);
        Fields.u32("Maximum Packet Size", maximumPacketSize);
        Fields.u32("Slack Term", slackTerm);
      }
    }

    static final int ENVELOPE_OCTETS = 28;

    @Override
    public int contentLength() {
      return 4 + ENVELOPE_OCTETS * envelopes.size();
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put((byte) envelope).put((byte) serviceNumber).putShort((short) 0);
      for (Envelope e : envelopes) {
        out.putFloat(e.tokenRate()).putFloat(e.bucketSize()).putFloat(e.peakRate());
        out.putInt((int) e.minimumPolicedUnit()).putInt((int) e.maximumPacketSize());
        out.putFloat(e.rate()).putInt((int) e.slackTerm());
      }
    }
  }

  /**
   * DOCSIS Service Class Name (7/2): Envelope, three reserved octets, and the name of a service
   * class provisioned on the CMTS: 1 to 15 printable ASCII characters and a terminating zero (2 to
   * 16 octets), padded with zeros to a multiple of 4, as I02 has it and as this writes it. A name
   * of 16 characters is held only because some CMTSs write one (with no zero: the object's largest
   * Length, 24, leaves no room for it); it is written back as they write it. Requests made here
   * ({@code /gates}, {@code pcmm.xml}) take 1 to 15.
   */
  record ServiceClassName(int envelope, String name) implements TrafficProfile {
    /** The longest name I02 allows: 15 characters and the terminating zero. */
    public static final int MAX = 15;

    /** The longest name held, as some CMTSs write it: 16 characters, no zero. */
    public static final int MAX_READ = 16;

    public ServiceClassName {
      if (envelope != AUTHORIZED && envelope != RESERVED && envelope != COMMITTED) {
        throw new IllegalArgumentException(
            "Service Class Name Envelope: " + envelope + " (expected: 1, 3 or 7)");
      }
      if (name.isEmpty()
          || name.length() > MAX_READ
          || !name.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
        throw new IllegalArgumentException(
            "Service Class Name: \""
                + name
                + "\" (expected: 1 to 15 printable ASCII characters, no spaces)");
      }
    }

    @Override
    public int sType() {
      return 2;
    }

    @Override
    public int contentLength() {
      return 4 + field(name.length());
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put((byte) envelope).put((byte) 0).putShort((short) 0);
      byte[] n = name.getBytes(StandardCharsets.US_ASCII);
      out.put(n);
      for (int i = n.length; i < field(n.length); i++) {
        out.put((byte) 0);
      }
    }

    /** The name's field: the name, its zero, and zeros to a multiple of 4 (16 for a 16th). */
    private static int field(int chars) {
      return chars == MAX_READ ? MAX_READ : (chars + 1 + 3) & ~3;
    }
  }

  /**
   * Best Effort Service (7/3): per envelope Traffic Priority, three reserved octets, Request/
   * Transmission Policy, Maximum Sustained Traffic Rate, Maximum Traffic Burst, Minimum Reserved
   * Traffic Rate (32 bits each), Assumed Minimum Reserved Traffic Rate Packet Size (16 bits) and
   * two reserved octets: 24 octets an envelope.
   */
  record BestEffort(int envelope, List<BestEffort.Envelope> envelopes) implements TrafficProfile {
    public BestEffort {
      envelopes = TrafficProfile.envelopes("Best Effort Service", envelope, envelopes);
    }

    /** One envelope of DOCSIS service flow parameters. */
    public record Envelope(
        int trafficPriority,
        long requestTransmissionPolicy,
        long maximumSustainedRate,
        long maximumTrafficBurst,
        long minimumReservedRate,
        int assumedMinimumPacketSize) {
      public Envelope {
        Fields.u8("Traffic Priority", trafficPriority);
        Fields.u32("Request/Transmission Policy", requestTransmissionPolicy);
        Fields.u32("Maximum Sustained Traffic Rate", maximumSustainedRate);
        Fields.u32("Maximum Traffic Burst", maximumTrafficBurst);
        Fields.u32("Minimum Reserved Traffic Rate", minimumReservedRate);
        Fields.u16("Assumed Minimum Reserved Traffic Rate Packet Size", assumedMinimumPacketSize);
      }
    }

    static final int ENVELOPE_OCTETS = 24;

    @Override
    public int sType() {
      return 3;
    }

    @Override
    public int contentLength() {
      return 4 + ENVELOPE_OCTETS * envelopes.size();
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put((byte) envelope).put((byte) 0).putShort((short) 0);
      for (Envelope e : envelopes) {
        out.put((byte) e.trafficPriority()).put((byte) 0).putShort((short) 0);
        out.putInt((int) e.requestTransmissionPolicy()).putInt((int) e.maximumSustainedRate());
        out.putInt((int) e.maximumTrafficBurst()).putInt((int) e.minimumReservedRate());
        out.putShort((short) e.assumedMinimumPacketSize()).putShort((short) 0);
      }
    }
  }

  /**
   * Unsolicited Grant Service (7/6): per envelope Request/Transmission Policy (32 bits),
   * Unsolicited Grant Size (16), Grants per Interval (8), a reserved octet, Nominal Grant Interval
   * and Tolerated Grant Jitter (32 each, microseconds): 16 octets an envelope.
   */
  record UnsolicitedGrant(int envelope, List<UnsolicitedGrant.Envelope> envelopes)
      implements TrafficProfile {
    public UnsolicitedGrant {
      envelopes = TrafficProfile.envelopes("Unsolicited Grant Service", envelope, envelopes);
    }

    /** One envelope of UGS parameters. */
    public record Envelope(
        long requestTransmissionPolicy,
        int grantSize,
        int grantsPerInterval,
        long nominalGrantInterval,
        long toleratedGrantJitter) {
      public Envelope {
        Fields.u32("Request/Transmission Policy", requestTransmissionPolicy);
        Fields.u16("Unsolicited Grant Size", grantSize);
        Fields.u8("Grants per Interval", grantsPerInterval);
        Fields.u32("Nominal Grant Interval", nominalGrantInterval);
        Fields.u32("Tolerated Grant Jitter", toleratedGrantJitter);
      }
    }

    static final int ENVELOPE_OCTETS = 16;

    @Override
    public int sType() {
      return 6;
    }

    @Override
    public int contentLength() {
      return 4 + ENVELOPE_OCTETS * envelopes.size();
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put((byte) envelope).put((byte) 0).putShort((short) 0);
      for (Envelope e : envelopes) {
        out.putInt((int) e.requestTransmissionPolicy()).putShort((short) e.grantSize());
        out.put((byte) e.grantsPerInterval()).put((byte) 0);
        out.putInt((int) e.nominalGrantInterval()).putInt((int) e.toleratedGrantJitter());
      }
    }
  }

  /**
   * Downstream Service (7/8): per envelope Traffic Priority, three reserved octets, Maximum
   * Sustained Traffic Rate, Maximum Traffic Burst, Minimum Reserved Traffic Rate (32 bits each),
   * Assumed Minimum Reserved Traffic Rate Packet Size (16), two reserved octets, Maximum Downstream
   * Latency (32, microseconds): 24 octets an envelope.
   */
  record Downstream(int envelope, List<Downstream.Envelope> envelopes) implements TrafficProfile {
    public Downstream {
      envelopes = TrafficProfile.envelopes("Downstream Service", envelope, envelopes);
    }

    /** One envelope of downstream service flow parameters. */
    public record Envelope(
        int trafficPriority,
        long maximumSustainedRate,
        long maximumTrafficBurst,
        long minimumReservedRate,
        int assumedMinimumPacketSize,
        long maximumLatency) {
      public Envelope {
        Fields.u8("Traffic Priority", trafficPriority);
        Fields.u32("Maximum Sustained Traffic Rate", maximumSustainedRate);
        Fields.u32("Maximum Traffic Burst", maximumTrafficBurst);
        Fields.u32("Minimum Reserved Traffic Rate", minimumReservedRate);
        Fields.u16("Assumed Minimum Reserved Traffic Rate Packet Size", assumedMinimumPacketSize);
        Fields.u32("Maximum Downstream Latency", maximumLatency);
      }
    }

    static final int ENVELOPE_OCTETS = 24;

    @Override
    public int sType() {
      return 8;
    }

    @Override
    public int contentLength() {
      return 4 + ENVELOPE_OCTETS * envelopes.size();
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put((byte) envelope).put((byte) 0).putShort((short) 0);
      for (Envelope e : envelopes) {
        out.put((byte) e.trafficPriority()).put((byte) 0).putShort((short) 0);
        out.putInt((int) e.maximumSustainedRate()).putInt((int) e.maximumTrafficBurst());
        out.putInt((int) e.minimumReservedRate());
        out.putShort((short) e.assumedMinimumPacketSize()).putShort((short) 0);
        out.putInt((int) e.maximumLatency());
      }
    }
  }

  /**
   * The other DOCSIS profiles (7/4 Non-Real-Time Polling, 7/5 Real-Time Polling, 7/7 UGS with
   * Activity Detection): their Envelope octet read, the rest kept as octets and passed on.
   */
  record Other(int sType, Bytes content) implements TrafficProfile {
    public Other {
      if (sType != 4 && sType != 5 && sType != 7) {
        throw new IllegalArgumentException(
            "traffic profile S-Type " + sType + " (expected: 4, 5 or 7; the others have records)");
      }
      if (content.length() < 4 || content.length() % 4 != 0 || content.length() > 0xFFFF - 4) {
        throw new IllegalArgumentException(
            "traffic profile 7/"
                + sType
                + ": "
                + content.length()
                + " octets of contents"
                + " (expected: a multiple of 4, at least 4)");
      }
    }

    @Override
    public int envelope() {
      return content.get(0) & 0xFF;
    }

    @Override
    public int contentLength() {
      return content.length();
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put(content.toArray());
    }
  }
}
