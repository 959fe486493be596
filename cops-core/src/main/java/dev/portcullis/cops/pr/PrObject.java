package dev.portcullis.cops.pr;

import dev.portcullis.cops.Bytes;
import java.util.Objects;

/**
 * COPS-PR sub-objects (RFC 3084 section 4), carried in Named ClientSI and Named Decision Data. Each
 * has a 4-byte header (length, S-Num, S-Type 1 = BER) and is padded to 32 bits like a COPS object.
 * BER values (PRIDs, encoded provisioning data) stay opaque bytes.
 */
public sealed interface PrObject {
  /** S-Type of every sub-object RFC 3084 defines: BER encoding. */
  int S_TYPE_BER = 1;

  int sNum();

  default int sType() {
    return S_TYPE_BER;
  }

  /** The contents after the 4-byte header, without padding. */
  Bytes content();

  /** S-Num values of RFC 3084 section 4. */
  interface SNum {
    int PRID = 1;
    int PPRID = 2;
    int EPD = 3;
    int GPERR = 4;
    int CPERR = 5;
    int ERROR_PRID = 6;
  }

  /** Provisioning Instance Identifier (S-Num 1): a BER-encoded OID naming a PRI. */
  record Prid(Bytes oid) implements PrObject {
    public Prid {
      Objects.requireNonNull(oid, "oid");
    }

    @Override
    public int sNum() {
      return SNum.PRID;
    }

    @Override
    public Bytes content() {
      return oid;
    }

    /** The OID in dotted form, or null if the bytes are not a well-formed BER OID. */
    public String dotted() {
      return Ber.oidToString(oid);
    }
  }

  /** Prefix PRID (S-Num 2): a BER-encoded OID prefix naming a set of PRIs. */
  record Pprid(Bytes oid) implements PrObject {
    public Pprid {
      Objects.requireNonNull(oid, "oid");
    }

    @Override
    public int sNum() {
      return SNum.PPRID;
    }

    @Override
    public Bytes content() {
      return oid;
    }
  }

  /** Encoded Provisioning Instance Data (S-Num 3): the BER-encoded attribute values of a PRI. */
  record Epd(Bytes ber) implements PrObject {
    public Epd {
      Objects.requireNonNull(ber, "ber");
    }

    @Override
    public int sNum() {
      return SNum.EPD;
    }

    @Override
    public Bytes content() {
      return ber;
    }
  }

  /**
   * Global Provisioning Error (S-Num 4) or PRC Class Provisioning Error (S-Num 5): Error-Code and
   * Error Sub-code, 16 bits each.
   */
  record ProvisioningError(boolean classSpecific, int code, int subCode) implements PrObject {
    public ProvisioningError {
      if (code < 0 || code > 0xFFFF || subCode < 0 || subCode > 0xFFFF) {
        throw new IllegalArgumentException(
            "provisioning error: " + code + "/" + subCode + " (expected: 16-bit values)");
      }
    }

    @Override
    public int sNum() {
      return classSpecific ? SNum.CPERR : SNum.GPERR;
    }

    @Override
    public Bytes content() {
      return Bytes.of(
          new byte[] {(byte) (code >> 8), (byte) code, (byte) (subCode >> 8), (byte) subCode});
    }
  }

  /** Error PRID (S-Num 6): the BER-encoded OID of the PRI that caused an error. */
  record ErrorPrid(Bytes oid) implements PrObject {
    public ErrorPrid {
      Objects.requireNonNull(oid, "oid");
    }

    @Override
    public int sNum() {
      return SNum.ERROR_PRID;
    }

    @Override
    public Bytes content() {
      return oid;
    }
  }
}
