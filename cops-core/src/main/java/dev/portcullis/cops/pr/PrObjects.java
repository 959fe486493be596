package dev.portcullis.cops.pr;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.pr.PrObject.SNum;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes the COPS-PR sub-object sequence inside a Named ClientSI or Named Decision Data
 * object. Offsets in errors are from the start of that object's contents.
 */
public final class PrObjects {
  private PrObjects() {}

  /** The sub-objects in {@code data}, in order. */
  public static List<PrObject> decode(Bytes data) throws CopsCodecException {
    List<PrObject> out = new ArrayList<>();
    int off = 0;
    int n = data.length();
    while (off < n) {
      if (n - off < 4) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, off, "COPS-PR object header", (n - off) + " bytes", "4");
      }
      int len = (data.get(off) & 0xFF) << 8 | (data.get(off + 1) & 0xFF);
      int sNum = data.get(off + 2) & 0xFF;
      int sType = data.get(off + 3) & 0xFF;
      if (len < 4) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, off, "COPS-PR object length", len, ">= 4");
      }
      int padded = (len + 3) & ~3;
      if (padded > n - off) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, off, "COPS-PR object length", len, "<= " + (n - off));
      }
      if (sType != PrObject.S_TYPE_BER || sNum < SNum.PRID || sNum > SNum.ERROR_PRID) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            off,
            "COPS-PR S-Num/S-Type",
            sNum + "/" + sType,
            "S-Num 1 to 6 with S-Type 1 (RFC 3084 section 4)");
      }
      Bytes content = data.slice(off + 4, len - 4);
      switch (sNum) {
        case SNum.PRID:
          out.add(new PrObject.Prid(content));
          break;
        case SNum.PPRID:
          out.add(new PrObject.Pprid(content));
          break;
        case SNum.EPD:
          out.add(new PrObject.Epd(content));
          break;
        case SNum.ERROR_PRID:
          out.add(new PrObject.ErrorPrid(content));
          break;
        default:
          if (len != 8) {
            throw CopsCodecException.at(
                BAD_MESSAGE_FORMAT,
                0,
                off,
                sNum == SNum.GPERR ? "GPERR length" : "CPERR length",
                len,
                "8");
          }
          out.add(
              new PrObject.ProvisioningError(
                  sNum == SNum.CPERR,
                  (content.get(0) & 0xFF) << 8 | (content.get(1) & 0xFF),
                  (content.get(2) & 0xFF) << 8 | (content.get(3) & 0xFF)));
          break;
      }
      off += padded;
    }
    return out;
  }

  /** The wire form of a sub-object sequence, each padded to 32 bits. */
  public static Bytes encode(List<? extends PrObject> objects) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (PrObject o : objects) {
      Bytes c = o.content();
      int len = 4 + c.length();
      if (len > 0xFFFF) {
        throw new IllegalArgumentException(
            "COPS-PR object: " + len + " bytes (expected: <= 65535)");
      }
      out.write(len >> 8);
      out.write(len);
      out.write(o.sNum());
      out.write(o.sType());
      out.writeBytes(c.toArray());
      for (int p = len; (p & 3) != 0; p++) {
        out.write(0);
      }
    }
    return Bytes.of(out.toByteArray());
  }
}
