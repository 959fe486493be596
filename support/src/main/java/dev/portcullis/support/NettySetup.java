package dev.portcullis.support;

/** Process-wide Netty settings the command-line programs apply before any Netty class loads. */
public final class NettySetup {
  private NettySetup() {}

  /**
   * On JDK 24 and later, tells Netty not to use {@code sun.misc.Unsafe}: its memory-access methods
   * are terminally deprecated there and the JVM prints a warning on first use, which no user of our
   * programs should see. Netty then uses its VarHandle and ByteBuffer paths. An explicit {@code
   * -Dio.netty.noUnsafe} setting is left alone. Call first thing in {@code main}.
   */
  public static void beforeNetty() {
    if (Runtime.version().feature() >= 24 && System.getProperty("io.netty.noUnsafe") == null) {
      System.setProperty("io.netty.noUnsafe", "true");
    }
  }
}
