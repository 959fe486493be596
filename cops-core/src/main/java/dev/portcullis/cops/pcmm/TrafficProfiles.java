package dev.portcullis.cops.pcmm;

import static dev.portcullis.cops.pcmm.PcmmErrorCode.INCOMPATIBLE_ENVELOPE;
import static dev.portcullis.cops.pcmm.PcmmErrorCode.INVALID_FIELD_VALUE;
import static dev.portcullis.cops.pcmm.PcmmErrorCode.INVALID_OBJECT;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Reads traffic profiles (S-Num 7): the Envelope octet checked against the envelopes the Length
 * holds.
 */
final class TrafficProfiles {
  private TrafficProfiles() {}

  static PcmmObject read(PcmmReader r) throws PcmmFormatException {
    if (r.len < 8) {
      if (r.sType >= 1 && r.sType <= 8) {
        throw PcmmFormatException.at(
            INVALID_OBJECT, r.sub(), r.start, "Length of " + r.name(), r.len, ">= 8");
      }
      return new PcmmObject.Unknown(r.sNum, r.sType, r.rest());
    }
    int envelope = r.b[r.pos] & 0xFF;
    switch (r.sType) {
      case 1:
        {
          int count = envelopes(r, envelope, TrafficProfile.FlowSpec.ENVELOPE_OCTETS);
          r.skip(1);
          int service = r.u8();
          r.skip(2);
          return new TrafficProfile.FlowSpec(
              envelope,
              service,
              repeat(
                  count,
                  i ->
                      new TrafficProfile.FlowSpec.Envelope(
                          Float.intBitsToFloat(r.i32()),
                          Float.intBitsToFloat(r.i32()),
                          Float.intBitsToFloat(r.i32()),
                          r.u32(),
                          r.u32(),
                          Float.intBitsToFloat(r.i32()),
                          r.u32())));
        }
      case 2:
        return serviceClassName(r, envelope);
      case 3:
        {
          int count = envelopes(r, envelope, TrafficProfile.BestEffort.ENVELOPE_OCTETS);
          r.skip(4);
          return new TrafficProfile.BestEffort(
              envelope,
              repeat(
                  count,
                  i -> {
                    int priority = r.u8();
                    r.skip(3);
                    TrafficProfile.BestEffort.Envelope e =
                        new TrafficProfile.BestEffort.Envelope(
                            priority, r.u32(), r.u32(), r.u32(), r.u32(), r.u16());
                    r.skip(2);
                    return e;
                  }));
        }
      case 6:
        {
          int count = envelopes(r, envelope, TrafficProfile.UnsolicitedGrant.ENVELOPE_OCTETS);
          r.skip(4);
          return new TrafficProfile.UnsolicitedGrant(
              envelope,
              repeat(
                  count,
                  i -> {
                    long rtp = r.u32();
                    int size = r.u16();
                    int grants = r.u8();
                    r.skip(1);
                    return new TrafficProfile.UnsolicitedGrant.Envelope(
                        rtp, size, grants, r.u32(), r.u32());
                  }));
        }
      case 8:
        {
          int count = envelopes(r, envelope, TrafficProfile.Downstream.ENVELOPE_OCTETS);
          r.skip(4);
          return new TrafficProfile.Downstream(
              envelope,
              repeat(
                  count,
                  i -> {
                    int priority = r.u8();
                    r.skip(3);
                    long sustained = r.u32();
                    long burst = r.u32();
                    long reserved = r.u32();
                    int packet = r.u16();
                    r.skip(2);
                    return new TrafficProfile.Downstream.Envelope(
                        priority, sustained, burst, reserved, packet, r.u32());
                  }));
        }
      case 4:
      case 5:
      case 7:
        return new TrafficProfile.Other(r.sType, r.rest());
      default:
        return new PcmmObject.Unknown(r.sNum, r.sType, r.rest());
    }
  }

  /** The number of envelopes the Length holds, checked against the Envelope octet. */
  private static int envelopes(PcmmReader r, int envelope, int octets) throws PcmmFormatException {
    int body = r.len - 8;
    if (body % octets != 0 || body / octets < 1 || body / octets > 3) {
      throw PcmmFormatException.at(
          INVALID_OBJECT,
          r.sub(),
          r.start,
          "Length of " + r.name(),
          r.len,
          (8 + octets) + ", " + (8 + 2 * octets) + " or " + (8 + 3 * octets));
    }
    int count = body / octets;
    if (envelope != (1 << count) - 1) {
      throw PcmmFormatException.at(
          INCOMPATIBLE_ENVELOPE,
          r.sub(),
          r.start + 4,
          "Envelope of " + r.name(),
          envelope,
          ((1 << count) - 1) + " for the " + count + " envelopes its Length holds");
    }
    return count;
  }

  private static PcmmObject serviceClassName(PcmmReader r, int envelope)
      throws PcmmFormatException {
    if (r.len < 12 || r.len > 24) {
      throw PcmmFormatException.at(
          INVALID_OBJECT, r.sub(), r.start, "Length of " + r.name(), r.len, "12 to 24");
    }
    r.skip(4);
    int nameStart = r.pos;
    int end = r.start + r.len;
    int zero = nameStart;
    while (zero < end && r.b[zero] != 0) {
      zero++;
    }
    for (int i = zero; i < end; i++) {
      if (r.b[i] != 0) {
        throw PcmmFormatException.at(
            INVALID_FIELD_VALUE, r.sub(), i, "Service Class Name padding", r.b[i] & 0xFF, "0");
      }
    }
    if (zero == end && zero - nameStart <= TrafficProfile.ServiceClassName.MAX_READ) {
      // no terminating zero: the name fills its field. I02 does not allow it; CMTSs and policy
      // servers in use write names whose length is a multiple of 4 so, up to 16 characters.
      // Read, and told to the caller (counted and logged there), never written so here
      String name = new String(r.b, nameStart, end - nameStart, StandardCharsets.US_ASCII);
      r.deviations.read(
          new Deviation(
              Deviation.UNTERMINATED_SERVICE_CLASS_NAME,
              "Service Class Name \"" + name + "\" without its terminating zero",
              nameStart));
      r.pos = end;
      return new TrafficProfile.ServiceClassName(envelope, name);
    }
    if (zero == end || zero == nameStart || end - zero > 4) {
      throw PcmmFormatException.at(
          INVALID_FIELD_VALUE,
          r.sub(),
          nameStart,
          "Service Class Name",
          "\"" + new String(r.b, nameStart, zero - nameStart, StandardCharsets.US_ASCII) + "\"",
          "1 to 15 characters ended by a zero, padded to 4 octets");
    }
    String name = new String(r.b, nameStart, zero - nameStart, StandardCharsets.US_ASCII);
    r.pos = end;
    return new TrafficProfile.ServiceClassName(envelope, name);
  }

  private static <E> List<E> repeat(int n, IntFunction<E> one) {
    List<E> l = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      l.add(one.apply(i));
    }
    return l;
  }
}
