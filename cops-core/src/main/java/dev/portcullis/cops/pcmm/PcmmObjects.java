package dev.portcullis.cops.pcmm;

import static dev.portcullis.cops.pcmm.PcmmErrorCode.INVALID_OBJECT;
import static dev.portcullis.cops.pcmm.PcmmErrorCode.objectSubcode;

import dev.portcullis.cops.Bytes;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes the sequence of PCMM objects in a COPS Client Specific Decision Data object
 * (DEC) or a signaled ClientSI (RPT, OPN). Reading never trusts a length: each object's Length is
 * checked against what remains and against the length its S-Num and S-Type define before a field is
 * read; a field out of its range is refused with its name and offset. Objects this implementation
 * does not know are kept ({@link PcmmObject.Unknown}) for the caller to report. Offsets are from
 * the start of the COPS object's contents.
 */
public final class PcmmObjects {
  private PcmmObjects() {}

  /** The objects in {@code data}, in order; what is read liberally is not reported. */
  public static List<PcmmObject> decode(Bytes data) throws PcmmFormatException {
    return decode(data, Deviation.Sink.NONE);
  }

  /**
   * The objects in {@code data}, in order; what deployed peers write against the specification and
   * is read anyway ({@link Deviation}) is told to {@code deviations}.
   */
  public static List<PcmmObject> decode(Bytes data, Deviation.Sink deviations)
      throws PcmmFormatException {
    byte[] b = data.toArray();
    List<PcmmObject> out = new ArrayList<>();
    int off = 0;
    while (off < b.length) {
      if (b.length - off < 4) {
        throw PcmmFormatException.at(
            INVALID_OBJECT, 0, off, "PCMM object header", (b.length - off) + " octets", "4");
      }
      int len = PcmmReader.u16(b, off);
      int sNum = b[off + 2] & 0xFF;
      int sType = b[off + 3] & 0xFF;
      int sub = objectSubcode(sNum, sType);
      if (len < 4 || len % 4 != 0) {
        throw PcmmFormatException.at(
            INVALID_OBJECT,
            sub,
            off,
            "Length of object " + sNum + "/" + sType,
            len,
            "a multiple of 4, at least 4");
      }
      if (len > b.length - off) {
        throw PcmmFormatException.at(
            INVALID_OBJECT,
            sub,
            off,
            "Length of object " + sNum + "/" + sType,
            len,
            "<= " + (b.length - off) + ", the octets that remain");
      }
      out.add(new PcmmReader(b, off, len, sNum, sType, deviations).object());
      off += len;
    }
    return out;
  }

  /**
   * The objects of {@code data} that can be read before the first that cannot (all of them if it
   * reads): what a receiver can still answer with, such as the AMID and Subscriber ID of a Gate-Set
   * whose classifier is broken.
   */
  public static List<PcmmObject> readable(Bytes data) {
    byte[] b = data.toArray();
    List<PcmmObject> out = new ArrayList<>();
    int off = 0;
    while (b.length - off >= 4) {
      int len = PcmmReader.u16(b, off);
      if (len < 4 || len % 4 != 0 || len > b.length - off) {
        break;
      }
      try {
        out.add(
            new PcmmReader(b, off, len, b[off + 2] & 0xFF, b[off + 3] & 0xFF, Deviation.Sink.NONE)
                .object());
      } catch (PcmmFormatException e) {
        break;
      }
      off += len;
    }
    return out;
  }

  /** The wire form of {@code objects}, one after another. */
  public static Bytes encode(List<? extends PcmmObject> objects) {
    int n = 0;
    for (PcmmObject o : objects) {
      n += o.length();
    }
    ByteBuffer out = ByteBuffer.allocate(n);
    for (PcmmObject o : objects) {
      write(o, out);
    }
    return Bytes.of(out.array());
  }

  /** Writes one object, header and contents. */
  static void write(PcmmObject o, ByteBuffer out) {
    int start = out.position();
    out.putShort((short) o.length()).put((byte) o.sNum()).put((byte) o.sType());
    o.writeContent(out);
    if (out.position() - start != o.length()) {
      throw new IllegalStateException(
          o.getClass().getSimpleName()
              + " wrote "
              + (out.position() - start)
              + " octets of "
              + o.length());
    }
  }
}
