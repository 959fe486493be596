package dev.portcullis.bench.compress;

import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/** A lossless per-packet codec: raw DEFLATE (RFC 1951, as IPComp uses it) or an LZ4 block. */
abstract class Codec {
  final String name;

  Codec(String name) {
    this.name = name;
  }

  /** Compresses {@code in}; returns the compressed bytes. */
  abstract byte[] compress(byte[] in);

  /** Decompresses into {@code out} (exactly its length). */
  abstract void decompress(byte[] in, byte[] out);

  static Codec deflate(int level) {
    return new Codec("deflate-" + level) {
      private final Deflater d = new Deflater(level, true);
      private final Inflater i = new Inflater(true);
      private final byte[] buf = new byte[1 << 17];

      @Override
      byte[] compress(byte[] in) {
        d.reset();
        d.setInput(in);
        d.finish();
        int n = 0;
        while (!d.finished()) {
          n += d.deflate(buf, n, buf.length - n);
        }
        return Arrays.copyOf(buf, n);
      }

      @Override
      void decompress(byte[] in, byte[] out) {
        i.reset();
        i.setInput(in);
        try {
          int n = 0;
          while (n < out.length) {
            int k = i.inflate(out, n, out.length - n);
            if (k == 0 && (i.needsInput() || i.finished())) {
              break;
            }
            n += k;
          }
          if (n != out.length) {
            throw new IllegalStateException("inflated " + n + " of " + out.length + " bytes");
          }
        } catch (DataFormatException e) {
          throw new IllegalStateException(e);
        }
      }
    };
  }

  /**
   * An LZ4 block, from lz4-java's pure-Java codec ({@code safeInstance}: no JNI, no {@code
   * sun.misc.Unsafe}).
   */
  static Codec lz4() {
    LZ4Factory f = LZ4Factory.safeInstance();
    LZ4Compressor c = f.fastCompressor();
    LZ4SafeDecompressor d = f.safeDecompressor();
    return new Codec("lz4") {
      private final byte[] buf = new byte[c.maxCompressedLength(1 << 17)];

      @Override
      byte[] compress(byte[] in) {
        int n = c.compress(in, 0, in.length, buf, 0, buf.length);
        return Arrays.copyOf(buf, n);
      }

      @Override
      void decompress(byte[] in, byte[] out) {
        int n = d.decompress(in, 0, in.length, out, 0, out.length);
        if (n != out.length) {
          throw new IllegalStateException("lz4: " + n + " of " + out.length + " bytes");
        }
      }
    };
  }
}
