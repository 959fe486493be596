package dev.portcullis.cops.pcmm;

import dev.portcullis.cops.Bytes;
import java.net.Inet4Address;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * The optional objects an application manager may add to a Gate-Set, passed to the CMTS as they
 * are: Event Generation Info, the usage limits and Opaque Data.
 */
public sealed interface GateExtra extends PcmmObject
    permits GateExtra.EventGenerationInfo,
        GateExtra.VolumeBasedUsageLimit,
        GateExtra.TimeBasedUsageLimit,
        GateExtra.OpaqueData {

  /**
   * Event Generation Info (8/1): the primary and secondary Record Keeping Servers (IPv4 address and
   * port, two reserved octets each) and the 24-octet Billing Correlation ID.
   */
  record EventGenerationInfo(
      Inet4Address primaryRks,
      int primaryPort,
      Inet4Address secondaryRks,
      int secondaryPort,
      Bytes billingCorrelationId)
      implements GateExtra {
    public EventGenerationInfo {
      Objects.requireNonNull(primaryRks, "primaryRks");
      Objects.requireNonNull(secondaryRks, "secondaryRks");
      Fields.u16("PRKS port", primaryPort);
      Fields.u16("SRKS port", secondaryPort);
      if (billingCorrelationId.length() != 24) {
        throw new IllegalArgumentException(
            "Billing Correlation ID: " + billingCorrelationId.length() + " octets (expected: 24)");
      }
    }

    @Override
    public int sNum() {
      return SNum.EVENT_GENERATION_INFO;
    }

    @Override
    public int contentLength() {
      return 40;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put(primaryRks.getAddress()).putShort((short) primaryPort).putShort((short) 0);
      out.put(secondaryRks.getAddress()).putShort((short) secondaryPort).putShort((short) 0);
      out.put(billingCorrelationId.toArray());
    }
  }

  /** Volume-Based Usage Limit (9/1): kilobytes, 64 bits. */
  record VolumeBasedUsageLimit(long kilobytes) implements GateExtra {
    @Override
    public int sNum() {
      return SNum.VOLUME_BASED_USAGE_LIMIT;
    }

    @Override
    public int contentLength() {
      return 8;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putLong(kilobytes);
    }
  }

  /** Time-Based Usage Limit (10/1): seconds, 32 bits unsigned. */
  record TimeBasedUsageLimit(long seconds) implements GateExtra {
    public TimeBasedUsageLimit {
      Fields.u32("Time Limit", seconds);
    }

    @Override
    public int sNum() {
      return SNum.TIME_BASED_USAGE_LIMIT;
    }

    @Override
    public int contentLength() {
      return 4;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putInt((int) seconds);
    }
  }

  /**
   * Opaque Data (11/1): the Application Manager's own octets, passed through; a multiple of 4
   * octets so that the next object stays aligned.
   */
  record OpaqueData(Bytes data) implements GateExtra {
    public OpaqueData {
      if (data.length() % 4 != 0 || data.length() > 0xFFFF - 4) {
        throw new IllegalArgumentException(
            "Opaque Data: " + data.length() + " octets (expected: a multiple of 4, at most 65528)");
      }
    }

    @Override
    public int sNum() {
      return SNum.OPAQUE_DATA;
    }

    @Override
    public int contentLength() {
      return data.length();
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put(data.toArray());
    }
  }
}
