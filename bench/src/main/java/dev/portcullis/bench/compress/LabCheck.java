package dev.portcullis.bench.compress;

import dev.portcullis.bench.compress.CompressionModel.Compression;
import dev.portcullis.tunnel.ProtectionObjective;
import dev.portcullis.tunnel.TunnelConnection;
import dev.portcullis.tunnel.lab.NetworkLab;
import dev.portcullis.tunnel.vici.ViciClient;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * McGregor and Lee's prediction checked on a real secured path: an ESP tunnel (AES-GCM) in the
 * network lab. Each payload is moved through it uncompressed and compressed with each codec,
 * interleaved, {@code repeats} times; the uncompressed transfer's rate is the model's secured path
 * (K = 1/R, its seconds per bit: encryption, hashing and the network in one, as this path does them
 * all in one process), the codecs' rates and ratios come from the in-process measurement, and the
 * prediction S = K / (1/R_COMP + K/X + 1/R_DECOMP) is set beside the measured speedup (the
 * uncompressed transfer's time over the compressed one's).
 */
final class LabCheck {
  private static final List<String> CODECS = List.of("deflate-1", "deflate-6", "lz4");

  private LabCheck() {}

  static List<Map<String, Object>> run(
      PrintWriter o,
      List<Compression> comps,
      Set<String> payloads,
      int size,
      long bytes,
      int repeats,
      Path samples)
      throws Exception {
    Path dir = Files.createTempDirectory("portcullis-compress-lab");
    List<Map<String, Object>> rows = new ArrayList<>();
    try (NetworkLab lab = NetworkLab.create(dir);
        ViciClient a = ViciClient.connect(lab.startCharon(lab.a()), Duration.ofSeconds(30));
        ViciClient b = ViciClient.connect(lab.startCharon(lab.b()), Duration.ofSeconds(30))) {
      TunnelConnection t =
          lab.loadTunnel(
              a,
              b,
              "compress",
              lab.a().inner() + "/32",
              lab.b().inner() + "/32",
              ProtectionObjective.CONFIDENTIALITY,
              Duration.ofHours(1));
      a.await(a.initiate(TunnelConnection.CHILD, t.name(), Duration.ofSeconds(10)));
      List<String> codecs = new ArrayList<>(List.of("none"));
      codecs.addAll(CODECS);
      Map<String, long[]> nanos = new LinkedHashMap<>();
      o.printf(
          "%nThrough an ESP tunnel (AES-GCM, userspace) in the network lab: %d MiB per transfer,"
              + " %d transfers each, interleaved...%n",
          bytes >> 20, repeats);
      o.flush();
      for (int r = 0; r < repeats; r++) {
        for (String p : payloads) {
          for (String c : codecs) {
            long n =
                LabTransfer.nanos(
                    lab,
                    dir,
                    lab.a().inner(),
                    lab.b().inner(),
                    p,
                    c,
                    size,
                    bytes,
                    samples.toAbsolutePath());
            nanos.computeIfAbsent(p + " " + c, k -> new long[repeats])[r] = n;
          }
        }
      }
      o.printf(
          "  %-12s %-10s %7s %12s %10s %10s  %s%n",
          "payload", "codec", "ratio", "path Mbit/s", "predicted", "measured", "");
      for (String p : payloads) {
        double plain = median(nanos.get(p + " none"));
        double pathBps = bytes * 8 / (plain / 1e9);
        double k = 1 / pathBps;
        for (String c : CODECS) {
          Compression m = find(comps, p, c);
          double predicted =
              k
                  / (SpeedupModel.inv(m.compressBps())
                      + k / m.ratio()
                      + SpeedupModel.inv(m.decompressBps()));
          double measured = plain / median(nanos.get(p + " " + c));
          String verdict = verdict(predicted, measured);
          o.printf(
              "  %-12s %-10s %7.2f %12.0f %10.2f %10.2f  %s%n",
              p, c, m.ratio(), pathBps / 1e6, predicted, measured, verdict);
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("payload", p);
          row.put("codec", c);
          row.put("ratio", m.ratio());
          row.put("pathBps", pathBps);
          row.put("predictedSpeedup", predicted);
          row.put("measuredSpeedup", measured);
          row.put("verdict", verdict);
          rows.add(row);
        }
      }
    }
    return rows;
  }

  /** Whether prediction and measurement fall on the same side of 1 (5 % around it: even). */
  static String verdict(double predicted, double measured) {
    int p = side(predicted);
    int m = side(measured);
    if (p == m) {
      return "agrees";
    }
    if (p == 0 || m == 0) {
      return "agrees within 5 % of even";
    }
    return m > 0
        ? "DISAGREES: pays though the model says not — the model adds compression, path and"
            + " decompression in series, while here the sender compresses the next block as"
            + " charon carries this one (another process, the other core)"
        : "DISAGREES: loses though the model says it pays — the codec ran slower in the"
            + " transfer than in-process (the other core busy with charon)";
  }

  private static int side(double s) {
    return s > 1.05 ? 1 : s < 0.95 ? -1 : 0;
  }

  private static Compression find(List<Compression> comps, String payload, String codec) {
    for (Compression c : comps) {
      if (c.payload().equals(payload) && c.codec().equals(codec)) {
        return c;
      }
    }
    throw new IllegalStateException("no rate for " + payload + " " + codec);
  }

  private static double median(long[] v) {
    long[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
  }
}
