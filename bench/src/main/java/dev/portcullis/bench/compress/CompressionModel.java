package dev.portcullis.bench.compress;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.bench.CryptoConfigOption;
import dev.portcullis.bench.compress.SpeedupModel.Security;
import dev.portcullis.crypto.CipherKey;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.MacKey;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ProgressLine;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.function.DoubleUnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * McGregor and Lee's question (Performance Impact of Data Compression on VPN Transactions) on this
 * machine: does compressing packets before securing them pay? Measures compression and
 * decompression rates and ratios on a small corpus of payloads, the rates of the providers the
 * registry chooses for AES-128-GCM and HMAC-SHA-256, and evaluates the paper's speedup equation and
 * inequality for links from 56 kbit/s to 100 Gbit/s.
 */
@Command(
    name = "compression-model",
    mixinStandardHelpOptions = true,
    description =
        "When does compressing before encrypting pay? McGregor and Lee's model, measured here.")
public final class CompressionModel implements Callable<Integer> {
  static final String WARNING =
      "Security: compressing secret data together with data an attacker chooses, then encrypting,"
          + " leaks the secret through the ciphertext's length (CRIME, BREACH). Portcullis never"
          + " compresses before encrypting unless configured to, and has no such option on by"
          + " default.";

  static final double[] LINKS = {56e3, 1.544e6, 10e6, 100e6, 1e9, 10e9, 100e9};

  @Option(
      names = "--size",
      defaultValue = "4096",
      description = "Payload bytes (${DEFAULT-VALUE}).")
  int size;

  @Option(
      names = "--millis",
      defaultValue = "300",
      description = "Time spent measuring each rate (${DEFAULT-VALUE} ms).")
  int millis;

  @Option(
      names = "--efficiency",
      defaultValue = "0.8",
      description = "Share of a link's bandwidth a transfer gets (the paper's 0.8).")
  double efficiency;

  @Mixin CryptoConfigOption crypto = new CryptoConfigOption();

  @Option(
      names = "--samples",
      defaultValue = "config",
      description = "XML files here make the 'policy XML' payload (${DEFAULT-VALUE}).")
  Path samples;

  @Option(
      names = "--out",
      defaultValue = "target/compression-model",
      description = "Where results.json and speedup.svg go (${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--network",
      defaultValue = "none",
      description =
          "none (default: the model only), or lab: also transfer each payload through an ESP"
              + " tunnel in the network lab, compressed and not, and set the model's prediction"
              + " beside the measured speedup (root and strongSwan needed).")
  String network;

  @Option(
      names = "--lab-bytes",
      defaultValue = "4194304",
      description = "Bytes per transfer through the lab (${DEFAULT-VALUE}).")
  long labBytes;

  @Option(
      names = "--lab-repeats",
      defaultValue = "3",
      description = "Transfers per payload and codec, interleaved; the median counts.")
  int labRepeats;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(Cli.of("compression-model", new CompressionModel()).execute(args));
  }

  /** One codec on one payload. */
  record Compression(
      String payload, String codec, double ratio, double compressBps, double decompressBps) {}

  @Override
  public Integer call() throws Exception {
    PrintWriter o = spec.commandLine().getOut();
    if (!network.equals("none") && !network.equals("lab")) {
      spec.commandLine().getErr().println("error: --network " + network + ": none or lab");
      return 2;
    }
    if (network.equals("lab")) {
      String why = dev.portcullis.tunnel.lab.NetworkLab.unavailable();
      if (why != null) {
        spec.commandLine()
            .getErr()
            .println("compression-model: --network lab cannot run here: " + why);
        return 1;
      }
    }
    o.println(WARNING);
    o.println();
    Map<String, byte[]> corpus = Corpus.of(size, samples);
    List<Codec> codecs = List.of(Codec.deflate(1), Codec.deflate(6), Codec.deflate(9), Codec.lz4());
    List<Compression> comps = new ArrayList<>();
    // a line every few seconds on stderr: measuring every payload and codec takes a while
    ProgressLine progress =
        new ProgressLine(
            spec.commandLine().getErr(),
            "compression-model",
            "payload x codec measurements",
            (long) corpus.size() * codecs.size());
    for (Map.Entry<String, byte[]> p : corpus.entrySet()) {
      for (Codec c : codecs) {
        comps.add(measure(p.getKey(), p.getValue(), c));
        progress.done(1);
      }
    }
    Map<String, Security> combos;
    Map<String, Double> rates;
    try (CryptoRegistry registry = CryptoRegistry.open(crypto.file)) {
      rates = cryptoRates(registry);
      double gcm = rates.get("AES-128-GCM encrypt");
      double gcmD = rates.get("AES-128-GCM decrypt");
      double mac = rates.get("HMAC-SHA-256");
      combos = new LinkedHashMap<>();
      combos.put("HMAC-SHA-256", new Security(0, 0, mac, mac));
      combos.put("AES-128-GCM", new Security(gcm, gcmD, 0, 0));
      combos.put("AES-128-GCM + HMAC-SHA-256", new Security(gcm, gcmD, mac, mac));
    }
    o.printf("Rates on this machine, %d-byte payloads (Mbit/s of uncompressed payload):%n", size);
    rates.forEach((k, v) -> o.printf("  %-28s %10.0f%n", k, v / 1e6));
    o.printf(
        "%n  %-12s %-10s %7s %12s %14s%n", "payload", "codec", "ratio", "compress", "decompress");
    for (Compression c : comps) {
      o.printf(
          "  %-12s %-10s %7.2f %12.0f %14.0f%n",
          c.payload(), c.codec(), c.ratio(), c.compressBps() / 1e6, c.decompressBps() / 1e6);
    }
    o.printf(
        "%nWhat security alone costs (table 2 of the paper: speedup, 1 = free), %.0f%% of"
            + " each link:%n  %-22s",
        efficiency * 100, "link");
    for (String k : combos.keySet()) {
      o.printf(" %28s", k);
    }
    o.println();
    for (double link : LINKS) {
      o.printf("  %-22s", linkName(link));
      for (Security s : combos.values()) {
        o.printf(
            " %28.3f", SpeedupModel.securitySpeedup(SpeedupModel.effective(link, efficiency), s));
      }
      o.println();
    }
    String combo = "AES-128-GCM + HMAC-SHA-256";
    Security sec = combos.get(combo);
    o.printf(
        "%nSpeedup from compressing first, with %s (above 1: compression pays; in brackets"
            + " the ratio it would need):%n  %-24s",
        combo, "payload / codec");
    for (double link : LINKS) {
      o.printf(" %18s", linkName(link));
    }
    o.println();
    for (Compression c : comps) {
      o.printf("  %-24s", c.payload() + " " + c.codec());
      for (double link : LINKS) {
        double eff = SpeedupModel.effective(link, efficiency);
        double s =
            SpeedupModel.compressionSpeedup(
                eff, sec, c.ratio(), c.compressBps(), c.decompressBps());
        double x = SpeedupModel.breakEvenRatio(eff, sec, c.compressBps(), c.decompressBps());
        o.printf(" %18s", fmt("%.2f", s) + (Double.isInfinite(x) ? " (never)" : fmt(" (%.2f)", x)));
      }
      o.println();
    }
    List<Map<String, Object>> lab =
        network.equals("lab")
            ? LabCheck.run(o, comps, corpus.keySet(), size, labBytes, labRepeats, samples)
            : List.of();
    String svg = chart(comps, sec, combo);
    // each file replaced on its own, nothing else in --out touched (docs/security.md, principle 9)
    dev.portcullis.support.DurableFiles.replace(
        out.resolve("speedup.svg"), f -> Files.writeString(f, svg));
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("warning", WARNING);
    json.put("payloadBytes", size);
    json.put("efficiency", efficiency);
    json.put("cryptoRatesBps", rates);
    json.put("compression", comps);
    if (!lab.isEmpty()) {
      json.put("throughTheLab", lab);
    }
    dev.portcullis.support.DurableFiles.replace(
        out.resolve("results.json"),
        f -> new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(f.toFile(), json));
    o.printf("%nwrote %s and %s%n", out.resolve("results.json"), out.resolve("speedup.svg"));
    o.println(WARNING);
    return 0;
  }

  static String linkName(double bps) {
    return bps >= 1e9
        ? fmt("%.0f Gbit/s", bps / 1e9)
        : bps >= 1e6 ? fmt("%.4g Mbit/s", bps / 1e6) : fmt("%.0f kbit/s", bps / 1e3);
  }

  static String fmt(String f, Object... a) {
    return String.format(Locale.ROOT, f, a);
  }

  /** Rate of an operation on {@code bytes} bytes, bits per second, after a warm-up. */
  private double rate(int bytes, Runnable op) {
    long warm = System.nanoTime() + millis * 1_000_000L / 3;
    while (System.nanoTime() < warm) {
      op.run();
    }
    long n = 0;
    long t0 = System.nanoTime();
    long end = t0 + millis * 1_000_000L;
    long t;
    do {
      op.run();
      n++;
      t = System.nanoTime();
    } while (t < end);
    return n * bytes * 8.0 / ((t - t0) / 1e9);
  }

  private Compression measure(String payload, byte[] in, Codec c) {
    byte[] z = c.compress(in);
    byte[] back = new byte[in.length];
    c.decompress(z, back);
    if (!Arrays.equals(in, back)) {
      throw new IllegalStateException(c.name + " did not round-trip " + payload);
    }
    double ratio = (double) in.length / z.length;
    double comp = rate(in.length, () -> c.compress(in));
    double decomp = rate(in.length, () -> c.decompress(z, back));
    return new Compression(payload, c.name, ratio, comp, decomp);
  }

  private Map<String, Double> cryptoRates(CryptoRegistry registry) throws Exception {
    SplittableRandom r = new SplittableRandom(7);
    byte[] key = new byte[16];
    r.nextBytes(key);
    byte[] in = new byte[size];
    r.nextBytes(in);
    Map<String, Double> m = new LinkedHashMap<>();
    CipherKey gcm = registry.cipherKey(Algorithm.AES_GCM, key);
    byte[] iv = new byte[12];
    byte[] ct = new byte[size + 16];
    byte[] pt = new byte[size];
    long[] counter = {0};
    m.put(
        "AES-128-GCM encrypt",
        rate(
            size,
            () -> {
              ByteBuffer.wrap(iv).putLong(4, ++counter[0]); // a new nonce each time
              try {
                gcm.encrypt(iv, null, in, 0, size, ct, 0);
              } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
              }
            }));
    ByteBuffer.wrap(iv).putLong(4, ++counter[0]); // never the same nonce twice
    gcm.encrypt(iv, null, in, 0, size, ct, 0);
    m.put(
        "AES-128-GCM decrypt",
        rate(
            size,
            () -> {
              try {
                gcm.decrypt(iv, null, ct, 0, ct.length, pt, 0);
              } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
              }
            }));
    gcm.destroy();
    byte[] mk = new byte[32];
    r.nextBytes(mk);
    MacKey mac = registry.macKey(Algorithm.HMAC_SHA256, mk);
    byte[] tag = new byte[32];
    m.put("HMAC-SHA-256", rate(size, () -> mac.compute(in, 0, size, tag, 0)));
    mac.destroy();
    return m;
  }

  /** Speedup against link speed, one line per payload and codec (log-scaled link axis). */
  static String chart(List<Compression> comps, Security sec, String combo) {
    int w = 900;
    int h = 460;
    int left = 60;
    int right = w - 220;
    int top = 30;
    int bottom = h - 50;
    double lo = Math.log10(LINKS[0]);
    double hi = Math.log10(LINKS[LINKS.length - 1]);
    double ymax = 0;
    for (Compression c : comps) {
      for (double l : LINKS) {
        ymax =
            Math.max(
                ymax,
                SpeedupModel.compressionSpeedup(
                    SpeedupModel.effective(l, 0.8),
                    sec,
                    c.ratio(),
                    c.compressBps(),
                    c.decompressBps()));
      }
    }
    ymax = Math.ceil(ymax);
    StringBuilder s =
        new StringBuilder(
            fmt(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
                    + " height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">",
                w, h));
    s.append(
        fmt(
            "<text x=\"%d\" y=\"18\">Speedup from compressing before %s, by link speed</text>",
            left, combo));
    double finalYmax = ymax;
    DoubleUnaryOperator x = v -> left + (Math.log10(v) - lo) / (hi - lo) * (right - left);
    DoubleUnaryOperator y = v -> bottom - v / finalYmax * (bottom - top);
    s.append(
        fmt(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>",
            left, bottom, right, bottom));
    s.append(
        fmt(
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>",
            left, top, left, bottom));
    s.append(
        fmt(
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#a33\""
                + " stroke-dasharray=\"4 3\"/>",
            left, y.applyAsDouble(1), right, y.applyAsDouble(1)));
    for (double l : LINKS) {
      s.append(
          fmt(
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
              x.applyAsDouble(l), bottom + 16, linkName(l)));
    }
    for (int v = 0; v <= ymax; v++) {
      s.append(
          fmt(
              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d</text>",
              left - 6, y.applyAsDouble(v) + 4, v));
    }
    String[] colors = {
      "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
      "#bcbd22", "#17becf"
    };
    int i = 0;
    for (Compression c : comps) {
      if (!c.codec().equals("deflate-6") && !c.codec().equals("lz4")) {
        continue; // keep the chart readable: the default level and the fast codec
      }
      String col = colors[i % colors.length];
      StringBuilder pts = new StringBuilder();
      for (double l : LINKS) {
        double v =
            SpeedupModel.compressionSpeedup(
                SpeedupModel.effective(l, 0.8), sec, c.ratio(), c.compressBps(), c.decompressBps());
        pts.append(fmt("%.1f,%.1f ", x.applyAsDouble(l), y.applyAsDouble(v)));
      }
      s.append(
          fmt(
              "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>",
              col,
              c.codec().equals("lz4") ? " stroke-dasharray=\"6 3\"" : "",
              pts.toString().trim()));
      s.append(
          fmt(
              "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s %s (x%.2f)</text>",
              right + 10, top + 14 * i, col, c.payload(), c.codec(), c.ratio()));
      i++;
    }
    s.append(
        fmt(
            "<text x=\"%d\" y=\"%d\">speedup (1 = no change; dashed red line)</text>",
            left, h - 12));
    return s.append("</svg>\n").toString();
  }
}
