package dev.portcullis.bench.compress;

/**
 * The system model of McGregor and Lee's compression paper (compression, encryption and
 * authentication of IPsec packets): each packet is compressed, encrypted, hashed, sent, verified,
 * decrypted and decompressed, one step after another; packet headers are neglected, as the paper's
 * inequality does. Rates in bits per second of uncompressed payload; a rate of 0 means the step is
 * not used.
 */
final class SpeedupModel {
  private SpeedupModel() {}

  /** Rates of the security steps. */
  public record Security(double encrypt, double decrypt, double hashCompute, double hashVerify) {
    public static final Security NONE = new Security(0, 0, 0, 0);

    /** Seconds per bit for the four steps together. */
    double secondsPerBit() {
      return inv(encrypt) + inv(decrypt) + inv(hashCompute) + inv(hashVerify);
    }
  }

  static double inv(double rate) {
    return rate > 0 && !Double.isInfinite(rate) ? 1 / rate : 0;
  }

  /** The network's effective rate: its bandwidth times the efficiency (the paper assumes 0.8). */
  public static double effective(double linkBps, double efficiency) {
    return linkBps * efficiency;
  }

  /**
   * Section 4, table 2: what security alone does to a transfer, S = T_NET / (T_E + T_HC + T_SECNET
   * + T_HV + T_D), 1 for no cost, towards 0 as the security steps dominate.
   */
  public static double securitySpeedup(double effectiveBps, Security s) {
    double net = 1 / effectiveBps;
    return net / (net + s.secondsPerBit());
  }

  /** K = 1/R_E + 1/R_D + 1/R_HC + 1/R_HV + 1/R_SECNET: seconds per bit without compression. */
  public static double k(double effectiveBps, Security s) {
    return s.secondsPerBit() + 1 / effectiveBps;
  }

  /**
   * Section 6.1: the speedup compression brings to a secured transfer, S = K / (1/R_COMP + K/X +
   * 1/R_DECOMP), with X the compression ratio (uncompressed over compressed size) and the
   * compression rates per bit of uncompressed payload. Above 1, compression pays.
   */
  public static double compressionSpeedup(
      double effectiveBps, Security s, double ratio, double compressBps, double decompressBps) {
    double k = k(effectiveBps, s);
    return k / (inv(compressBps) + k / ratio + inv(decompressBps));
  }

  /** Section 6.2's inequality: K (1 - 1/X) >= 1/R_COMP + 1/R_DECOMP. */
  public static boolean compressionHelps(
      double effectiveBps, Security s, double ratio, double compressBps, double decompressBps) {
    return k(effectiveBps, s) * (1 - 1 / ratio) >= inv(compressBps) + inv(decompressBps);
  }

  /**
   * The smallest compression ratio with which compression pays at these rates, or infinity when
   * none does (compressing and decompressing alone take longer than the whole transfer).
   */
  public static double breakEvenRatio(
      double effectiveBps, Security s, double compressBps, double decompressBps) {
    double c = (inv(compressBps) + inv(decompressBps)) / k(effectiveBps, s);
    return c >= 1 ? Double.POSITIVE_INFINITY : 1 / (1 - c);
  }
}
