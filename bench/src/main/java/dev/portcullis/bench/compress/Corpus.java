package dev.portcullis.bench.compress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The payloads compression is measured on, McGregor and Lee's kinds: English-like text, the sample
 * policy XML, binary records, already compressed data and random bytes, each {@code size} bytes,
 * generated reproducibly (the same bytes in every process that asks).
 */
final class Corpus {
  private Corpus() {}

  /** Text, policy XML, binary records, already compressed, random: generated, reproducibly. */
  static Map<String, byte[]> of(int size, Path samples) throws IOException {
    Map<String, byte[]> c = new LinkedHashMap<>();
    SplittableRandom r = new SplittableRandom(2026);
    String[] words =
        ("the of and to in a is that for it as was with be by on not he this are or"
                + " his from at which but have an they you were her she there been one all we their has"
                + " would when if so no will can more other its who into some time only new could these"
                + " two may first then do any like my now over such our man me even most made after also"
                + " policy decision request router packet session key server client access")
            .split(" ");
    StringBuilder t = new StringBuilder();
    while (t.length() < size) {
      t.append(words[r.nextInt(words.length)]).append(r.nextInt(12) == 0 ? ". " : " ");
    }
    c.put("text", slice(t.toString().getBytes(StandardCharsets.US_ASCII), size));
    if (Files.isDirectory(samples)) {
      StringBuilder x = new StringBuilder();
      try (Stream<Path> files = Files.list(samples)) {
        for (Path p : files.filter(p -> p.toString().endsWith(".xml")).sorted().toList()) {
          x.append(Files.readString(p));
        }
      }
      while (x.length() > 0 && x.length() < size) {
        x.append(x);
      }
      if (x.length() > 0) {
        c.put("policy XML", slice(x.toString().getBytes(StandardCharsets.UTF_8), size));
      }
    }
    byte[] bin = new byte[size];
    for (int i = 0; i + 16 <= size; i += 16) { // records: id, a 10.x.y.z address, port, counter
      int id = i / 16;
      bin[i] = (byte) (id >>> 8);
      bin[i + 1] = (byte) id;
      bin[i + 4] = 10;
      bin[i + 5] = (byte) r.nextInt(4);
      bin[i + 6] = (byte) r.nextInt(256);
      bin[i + 7] = (byte) r.nextInt(256);
      bin[i + 8] = (byte) (r.nextBoolean() ? 0x01 : 0x00);
      bin[i + 9] = (byte) (r.nextBoolean() ? 0xBB : 0x16);
      bin[i + 12] = (byte) r.nextInt(3);
      bin[i + 15] = (byte) r.nextInt(256);
    }
    c.put("binary", bin);
    byte[] big = new byte[size * 4];
    byte[] text = t.toString().getBytes(StandardCharsets.US_ASCII);
    StringBuilder more = new StringBuilder();
    while (more.length() < big.length * 3) {
      more.append(words[r.nextInt(words.length)]).append(' ');
    }
    byte[] compressed =
        Codec.deflate(9).compress(more.toString().getBytes(StandardCharsets.US_ASCII));
    c.put("compressed", slice(compressed, size));
    byte[] random = new byte[size];
    r.nextBytes(random);
    c.put("random", random);
    return c;
  }

  private static byte[] slice(byte[] b, int size) {
    return Arrays.copyOf(b, size);
  }
}
