package dev.portcullis.cops.access;

import dev.portcullis.cops.Bytes;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A block's attributes as {@link Tlv#read} found them, its structure checked whole before any is
 * looked at (count, lengths, padding, nothing trailing): iterating gives one {@link Attribute}
 * moved along them.
 */
final class TlvBlock implements Iterable<TlvBlock.Attribute> {
  /**
   * One attribute of a block, as its reader is at it: a cursor the iteration of {@link Tlv#read}
   * moves from attribute to attribute (valid until the next one), so decoding a request allocates
   * no object per attribute. A JFR profile of the pipelined PDP had a record per attribute at 16.5
   * % of the event loop's allocated bytes (docs/benchmarks.md).
   */
  static final class Attribute {
    private final byte[] block;
    private int type;
    private int valueOffset;
    private int length;
    private int offset;

    private Attribute(byte[] block) {
      this.block = block;
    }

    int type() {
      return type;
    }

    byte[] block() {
      return block;
    }

    int valueOffset() {
      return valueOffset;
    }

    int length() {
      return length;
    }

    /** Where the attribute starts in the block, for error messages. */
    int offset() {
      return offset;
    }

    /** A copy of the value (extension attributes are kept this way). */
    Bytes value() {
      return Bytes.of(block, valueOffset, length);
    }

    int u8(int i) {
      return block[valueOffset + i] & 0xFF;
    }
  }

  private final byte[] block;
  private final int[] at; // per attribute: type, value offset, length, offset
  private final int count;

  TlvBlock(byte[] block, int[] at, int count) {
    this.block = block;
    this.at = at;
    this.count = count;
  }

  @Override
  public Iterator<Attribute> iterator() {
    Attribute cursor = new Attribute(block);
    return new Iterator<>() {
      private int i;

      @Override
      public boolean hasNext() {
        return i < count;
      }

      @Override
      public Attribute next() {
        if (i >= count) {
          throw new NoSuchElementException();
        }
        int k = 4 * i++;
        cursor.type = at[k];
        cursor.valueOffset = at[k + 1];
        cursor.length = at[k + 2];
        cursor.offset = at[k + 3];
        return cursor;
      }
    };
  }
}
