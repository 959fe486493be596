package dev.portcullis.cops.pcmm;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.nio.ByteBuffer;
import java.util.Objects;

/** Classifiers (S-Num 6): which packets a gate's flow carries. */
public sealed interface PcmmClassifier extends PcmmObject
    permits PcmmClassifier.Classifier,
        PcmmClassifier.ExtendedClassifier,
        PcmmClassifier.Ipv6Classifier {

  @Override
  default int sNum() {
    return SNum.CLASSIFIER;
  }

  /** Activation State of the extended classifiers. */
  int INACTIVE = 0;

  int ACTIVE = 1;

  /** Actions of the extended classifiers. */
  int ADD = 0;

  int REPLACE = 1;
  int DELETE = 2;
  int NO_CHANGE = 3;

  /**
   * Classifier (6/1): Protocol ID, DSCP/TOS and mask, source and destination IPv4 address and port
   * (0 is a wildcard), Priority, three reserved octets.
   */
  record Classifier(
      int protocol,
      int dscpTos,
      int dscpTosMask,
      Inet4Address source,
      Inet4Address destination,
      int sourcePort,
      int destinationPort,
      int priority)
      implements PcmmClassifier {
    public Classifier {
      Fields.u16("Protocol ID", protocol);
      Fields.u8("DSCP/TOS", dscpTos);
      Fields.u8("DSCP/TOS Mask", dscpTosMask);
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(destination, "destination");
      Fields.u16("Source Port", sourcePort);
      Fields.u16("Destination Port", destinationPort);
      Fields.u8("Priority", priority);
    }

    @Override
    public int contentLength() {
      return 20;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) protocol).put((byte) dscpTos).put((byte) dscpTosMask);
      out.put(source.getAddress()).put(destination.getAddress());
      out.putShort((short) sourcePort).putShort((short) destinationPort);
      out.put((byte) priority).put((byte) 0).putShort((short) 0);
    }
  }

  /**
   * Extended Classifier (6/2): as the Classifier with masks and port ranges, then ClassifierID,
   * Priority, Activation State, Action and three reserved octets.
   */
  record ExtendedClassifier(
      int protocol,
      int dscpTos,
      int dscpTosMask,
      Inet4Address source,
      Inet4Address sourceMask,
      Inet4Address destination,
      Inet4Address destinationMask,
      int sourcePortStart,
      int sourcePortEnd,
      int destinationPortStart,
      int destinationPortEnd,
      int classifierId,
      int priority,
      int activationState,
      int action)
      implements PcmmClassifier {
    public ExtendedClassifier {
      Fields.u16("Protocol ID", protocol);
      Fields.u8("DSCP/TOS", dscpTos);
      Fields.u8("DSCP/TOS Mask", dscpTosMask);
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(sourceMask, "sourceMask");
      Objects.requireNonNull(destination, "destination");
      Objects.requireNonNull(destinationMask, "destinationMask");
      checkPortsAndControl(
          sourcePortStart,
          sourcePortEnd,
          destinationPortStart,
          destinationPortEnd,
          classifierId,
          priority,
          activationState,
          action);
    }

    @Override
    public int sType() {
      return 2;
    }

    @Override
    public int contentLength() {
      return 36;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.putShort((short) protocol).put((byte) dscpTos).put((byte) dscpTosMask);
      out.put(source.getAddress()).put(sourceMask.getAddress());
      out.put(destination.getAddress()).put(destinationMask.getAddress());
      portsAndControl(
          out,
          sourcePortStart,
          sourcePortEnd,
          destinationPortStart,
          destinationPortEnd,
          classifierId,
          priority,
          activationState,
          action);
    }
  }

  /**
   * IPv6 Classifier (6/3, after I02): Flags, traffic class low, high and mask, Flow Label (32 bits,
   * the label in the low 20), Next Header Type (16 bits), source and destination prefix lengths,
   * the two addresses, port ranges, then as the Extended Classifier: ClassifierID, Priority,
   * Activation State, Action, three reserved octets.
   */
  record Ipv6Classifier(
      int flags,
      int tcLow,
      int tcHigh,
      int tcMask,
      int flowLabel,
      int nextHeader,
      int sourcePrefixLength,
      int destinationPrefixLength,
      Inet6Address source,
      Inet6Address destination,
      int sourcePortStart,
      int sourcePortEnd,
      int destinationPortStart,
      int destinationPortEnd,
      int classifierId,
      int priority,
      int activationState,
      int action)
      implements PcmmClassifier {
    public Ipv6Classifier {
      Fields.u8("Flags", flags);
      Fields.u8("tc-low", tcLow);
      Fields.u8("tc-high", tcHigh);
      Fields.u8("tc-mask", tcMask);
      if (flowLabel < 0 || flowLabel > 0xFFFFF) {
        throw new IllegalArgumentException(
            "Flow Label: " + flowLabel + " (expected: 0 to 1048575, 20 bits)");
      }
      Fields.u16("Next Header Type", nextHeader);
      if (sourcePrefixLength > 128 || sourcePrefixLength < 0) {
        throw new IllegalArgumentException(
            "Source Prefix Length: " + sourcePrefixLength + " (expected: 0 to 128)");
      }
      if (destinationPrefixLength > 128 || destinationPrefixLength < 0) {
        throw new IllegalArgumentException(
            "Destination Prefix Length: " + destinationPrefixLength + " (expected: 0 to 128)");
      }
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(destination, "destination");
      checkPortsAndControl(
          sourcePortStart,
          sourcePortEnd,
          destinationPortStart,
          destinationPortEnd,
          classifierId,
          priority,
          activationState,
          action);
    }

    @Override
    public int sType() {
      return 3;
    }

    @Override
    public int contentLength() {
      return 60;
    }

    @Override
    public void writeContent(ByteBuffer out) {
      out.put((byte) flags).put((byte) tcLow).put((byte) tcHigh).put((byte) tcMask);
      out.putInt(flowLabel).putShort((short) nextHeader);
      out.put((byte) sourcePrefixLength).put((byte) destinationPrefixLength);
      out.put(source.getAddress()).put(destination.getAddress());
      portsAndControl(
          out,
          sourcePortStart,
          sourcePortEnd,
          destinationPortStart,
          destinationPortEnd,
          classifierId,
          priority,
          activationState,
          action);
    }
  }

  /** The extended classifiers' common end, checked. */
  private static void checkPortsAndControl(
      int sps, int spe, int dps, int dpe, int id, int priority, int state, int action) {
    Fields.u16("Source Port Start", sps);
    Fields.u16("Source Port End", spe);
    Fields.u16("Destination Port Start", dps);
    Fields.u16("Destination Port End", dpe);
    Fields.u16("ClassifierID", id);
    Fields.u8("Priority", priority);
    Fields.u8("Activation State", state);
    Fields.u8("Action", action);
  }

  /** The extended classifiers' common end: port ranges, ClassifierID to Action, 3 reserved. */
  private static void portsAndControl(
      ByteBuffer out,
      int sps,
      int spe,
      int dps,
      int dpe,
      int id,
      int priority,
      int state,
      int action) {
    out.putShort((short) sps).putShort((short) spe).putShort((short) dps).putShort((short) dpe);
    out.putShort((short) id).put((byte) priority).put((byte) state);
    out.put((byte) action).put((byte) 0).putShort((short) 0);
  }
}
