package dev.portcullis.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The embedded store's file, byte by byte (docs/fleet.md, "The store"): magic "PCST", the entry
 * count, the entries, the CRC-32 of all before it.
 */
final class StoreFile {
  private StoreFile() {}

  private static final int MAGIC = 0x50435354; // "PCST"
  private static final int HEADER = 8; // magic, entry count
  private static final int CHECKSUM = 8;
  private static final int MIN_ENTRY = 2 + 4 + 4; // an empty path, version, an empty data length

  /**
   * The largest store file read: the embedded store is for one server's small state (sessions,
   * credentials, policy versions); a larger file is not one of ours, and is refused before it is
   * read into memory.
   */
  static final long MAX_FILE = 256L << 20;

  /** The file for {@code entries} (path to value and version), in their order. */
  static byte[] encode(Map<String, Versioned> entries) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(MAGIC);
    out.writeInt(entries.size());
    for (Map.Entry<String, Versioned> e : entries.entrySet()) {
      out.writeUTF(e.getKey());
      out.writeInt(e.getValue().version());
      out.writeInt(e.getValue().data().length);
      out.write(e.getValue().data());
    }
    CRC32 crc = new CRC32();
    crc.update(bytes.toByteArray());
    out.writeLong(crc.getValue());
    return bytes.toByteArray();
  }

  /**
   * Reads the file's entries: its checksum is checked first, then every count and length against
   * the bytes that remain, so a damaged file is refused with the byte offset and the field, never
   * read into an array its lengths ask for. Layout: magic "PCST" (4 bytes), entry count (4), per
   * entry the path (2-byte length, modified UTF-8), version (4), data length (4) and data, then the
   * CRC-32 of everything before it (8).
   */
  static Map<String, Versioned> decode(byte[] b) throws IOException {
    Map<String, Versioned> entries = new LinkedHashMap<>();
    if (b.length < HEADER + CHECKSUM) {
      throw new IOException(
          "damaged: "
              + b.length
              + " bytes, shorter than an empty store ("
              + (HEADER + CHECKSUM)
              + "): cut short");
    }
    ByteBuffer in = ByteBuffer.wrap(b);
    if (in.getInt(0) != MAGIC) {
      throw new IOException("not a Portcullis state store (byte 0: no PCST magic)");
    }
    int end = b.length - CHECKSUM; // where the entries end and the checksum begins
    CRC32 crc = new CRC32();
    crc.update(b, 0, end);
    if (in.getLong(end) != crc.getValue()) {
      throw new IOException(
          "damaged: the checksum (bytes "
              + end
              + " to "
              + (b.length - 1)
              + ") does not match the "
              + end
              + " bytes before it: the file was cut short or changed");
    }
    in.position(4).limit(end);
    int n = in.getInt();
    if (n < 0 || n > in.remaining() / MIN_ENTRY) {
      throw new IOException(
          "damaged at byte 4: entry count " + n + " does not fit in " + in.remaining() + " bytes");
    }
    for (int i = 0; i < n; i++) {
      int at = in.position();
      String path;
      try {
        path = StorePaths.check(utf(in, at, i));
      } catch (IllegalArgumentException e) {
        throw new IOException("damaged at byte " + at + " (entry " + i + "): " + e.getMessage());
      }
      int version = int32(in, "version", i);
      int length = int32(in, "data length", i);
      if (length < 0 || length > in.remaining()) {
        throw new IOException(
            "damaged at byte "
                + (in.position() - 4)
                + " (entry "
                + i
                + "): data length "
                + length
                + ", "
                + in.remaining()
                + " bytes remain");
      }
      byte[] data = new byte[length];
      in.get(data);
      entries.put(path, new Versioned(data, version));
    }
    if (in.hasRemaining()) {
      throw new IOException(
          "damaged at byte "
              + in.position()
              + ": "
              + in.remaining()
              + " bytes after the last of "
              + n
              + " entries");
    }
    return entries;
  }

  private static int int32(ByteBuffer in, String field, int entry) throws IOException {
    if (in.remaining() < 4) {
      throw new IOException(
          "damaged at byte " + in.position() + " (entry " + entry + "): ends inside its " + field);
    }
    return in.getInt();
  }

  /** A path as DataOutput.writeUTF wrote it (2-byte length, modified UTF-8), checked in bounds. */
  private static String utf(ByteBuffer in, int at, int entry) throws IOException {
    if (in.remaining() < 2) {
      throw new IOException("damaged at byte " + at + " (entry " + entry + "): ends in its path");
    }
    int length = Short.toUnsignedInt(in.getShort(at));
    if (length > in.remaining() - 2) {
      throw new IOException(
          "damaged at byte "
              + at
              + " (entry "
              + entry
              + "): path length "
              + length
              + ", "
              + (in.remaining() - 2)
              + " bytes remain");
    }
    try {
      String s =
          new DataInputStream(new ByteArrayInputStream(in.array(), at, 2 + length)).readUTF();
      in.position(at + 2 + length);
      return s;
    } catch (UTFDataFormatException e) {
      throw new IOException(
          "damaged at byte " + (at + 2) + " (entry " + entry + "): path is not modified UTF-8");
    }
  }
}
