package dev.portcullis.netfilter;

import java.io.IOException;

/**
 * nftables through its library (libnftables): commands in nft's own syntax, run in the network
 * namespace of the calling thread, all of one call applied as one transaction.
 */
public final class Nftables {
  private Nftables() {}

  /**
   * Runs {@code commands} (one or more lines of nft syntax).
   *
   * @throws IOException with nft's own error text when they fail (nothing of them applied)
   */
  public static void run(String commands) throws IOException {
    NetfilterNative.ensure();
    String error = NetfilterNative.nftRun(commands);
    if (error != null) {
      throw new IOException("nft: " + error.strip());
    }
  }
}
