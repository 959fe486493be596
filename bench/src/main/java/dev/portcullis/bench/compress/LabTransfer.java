package dev.portcullis.bench.compress;

import dev.portcullis.tunnel.lab.LabJvm;
import dev.portcullis.tunnel.lab.NetworkLab;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * One transfer through the lab's tunnel, compressed per packet or not, as McGregor and Lee's model
 * has it: the sender compresses each payload (a block of {@code size} bytes, raw DEFLATE or LZ4 as
 * IPComp would, or nothing) and sends it length-prefixed; the receiver decompresses each and counts
 * what arrived. Timed at the sender from the first block to the receiver's word that the last one
 * is in. Both ends are this class run as JVMs in the lab's namespaces ({@link LabJvm}).
 */
final class LabTransfer {
  private static final int PORT = 5202;

  private LabTransfer() {}

  /** Nanoseconds to move {@code total} bytes of {@code payload} with {@code codec} ("none"). */
  static long nanos(
      NetworkLab lab,
      Path dir,
      String from,
      String to,
      String payload,
      String codec,
      int size,
      long total,
      Path samples)
      throws IOException, InterruptedException {
    try (LabJvm sink =
        LabJvm.listen(
            lab,
            dir,
            LabTransfer.class,
            List.of("sink", to, codec, Integer.toString(size), samples.toString(), payload))) {
      String sent =
          LabJvm.run(
              lab,
              LabTransfer.class,
              List.of(
                  "source",
                  from,
                  to,
                  payload,
                  codec,
                  Integer.toString(size),
                  Long.toString(total),
                  samples.toString()));
      long blocks = LabJvm.field(sink.finish(), "received");
      if (blocks != total / size) {
        throw new IOException("received " + blocks + " blocks of " + total / size);
      }
      return LabJvm.field(sent, "nanos");
    }
  }

  private static Codec codec(String name) {
    return switch (name) {
      case "none" -> null;
      case "lz4" -> Codec.lz4();
      default -> Codec.deflate(Integer.parseInt(name.substring(name.indexOf('-') + 1)));
    };
  }

  /**
   * {@code sink ADDRESS CODEC SIZE SAMPLES PAYLOAD} or {@code source FROM TO PAYLOAD CODEC SIZE
   * TOTAL SAMPLES}.
   */
  public static void main(String[] a) throws IOException {
    if (a.length == 6 && a[0].equals("sink")) {
      Codec c = codec(a[2]);
      int size = Integer.parseInt(a[3]);
      byte[] expected = Corpus.of(size, Path.of(a[4])).get(a[5]);
      warm(c, expected);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getByName(a[1]), PORT));
        System.out.println("listening");
        System.out.flush();
        try (Socket k = s.accept();
            DataInputStream in = new DataInputStream(k.getInputStream());
            OutputStream out = k.getOutputStream()) {
          byte[] buf = new byte[size * 2 + 64];
          byte[] block = new byte[size];
          long n = 0;
          for (int len; (len = readLength(in)) >= 0; n++) {
            in.readFully(buf, 0, len);
            if (c != null) {
              c.decompress(java.util.Arrays.copyOf(buf, len), block);
            } else {
              System.arraycopy(buf, 0, block, 0, len);
            }
            if (n == 0 && !java.util.Arrays.equals(block, expected)) {
              throw new IOException("the first block arrived altered");
            }
          }
          out.write("done\n".getBytes(StandardCharsets.US_ASCII));
          System.out.println("received " + n);
        }
      }
    } else if (a.length == 8 && a[0].equals("source")) {
      int size = Integer.parseInt(a[5]);
      long blocks = Long.parseLong(a[6]) / size;
      byte[] block = Corpus.of(size, Path.of(a[7])).get(a[3]);
      Codec c = codec(a[4]);
      warm(c, block);
      try (Socket k = new Socket()) {
        k.bind(new InetSocketAddress(InetAddress.getByName(a[1]), 0));
        k.connect(new InetSocketAddress(InetAddress.getByName(a[2]), PORT), 10_000);
        DataOutputStream out =
            new DataOutputStream(new java.io.BufferedOutputStream(k.getOutputStream(), 1 << 16));
        long t0 = System.nanoTime();
        for (long i = 0; i < blocks; i++) {
          byte[] z = c == null ? block : c.compress(block);
          out.writeInt(z.length);
          out.write(z);
        }
        out.flush();
        k.shutdownOutput();
        try (BufferedReader r =
            new BufferedReader(
                new InputStreamReader(k.getInputStream(), StandardCharsets.US_ASCII))) {
          if (!"done".equals(r.readLine())) {
            throw new IOException("the receiver did not confirm");
          }
        }
        System.out.println("nanos " + (System.nanoTime() - t0));
      }
    } else {
      System.err.println("usage: sink ADDRESS CODEC SIZE SAMPLES PAYLOAD | source FROM TO ...");
      System.exit(2);
    }
  }

  /**
   * Runs the codec for half a second first: the model's rates are a warm JIT's (measured in
   * process), and a fresh JVM's first thousand blocks are not (LZ4 ran at a third of its speed).
   */
  private static void warm(Codec c, byte[] block) {
    if (c == null) {
      return;
    }
    byte[] back = new byte[block.length];
    long end = System.nanoTime() + 500_000_000L;
    while (System.nanoTime() < end) {
      c.decompress(c.compress(block), back);
    }
  }

  private static int readLength(DataInputStream in) throws IOException {
    try {
      return in.readInt();
    } catch (java.io.EOFException e) {
      return -1;
    }
  }
}
