package dev.portcullis.netfilter;

import java.io.IOException;

/**
 * nftables through its library (libnftables): commands in nft's own syntax, all of one call applied
 * as one transaction. {@link #run} makes a context for each call; an instance ({@link #open}) keeps
 * one for many, which a flow's element added at its SYN needs (a context made per command cost the
 * host firewall most of its time per new flow: FirewallBench). A context belongs to the thread that
 * uses it, and works in the network namespace of the thread that opened it.
 */
public final class Nftables implements AutoCloseable {
  private long context;

  private Nftables(long context) {
    this.context = context;
  }

  /** A context kept for many commands, in the calling thread's network namespace. */
  public static Nftables open() throws IOException {
    NetfilterNative.ensure();
    return new Nftables(NetfilterNative.nftOpen());
  }

  /**
   * Runs {@code commands} on this context.
   *
   * @throws IOException with nft's own error text when they fail (nothing of them applied)
   */
  public void execute(String commands) throws IOException {
    if (context == 0) {
      throw new IOException("nft: context closed");
    }
    String error = NetfilterNative.nftRunOn(context, commands);
    if (error != null) {
      throw new IOException("nft: " + error.strip());
    }
  }

  @Override
  public void close() {
    NetfilterNative.nftClose(context);
    context = 0;
  }

  /**
   * Runs {@code commands} (one or more lines of nft syntax) on a context of their own, in the
   * calling thread's network namespace.
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
