package dev.portcullis.cops.tls;

import io.netty.handler.ssl.OpenSsl;
import java.util.Locale;

/**
 * The TLS implementations Portcullis can run COPS over, all driven through Netty's {@code
 * SslContext}. Chosen per PDP or PEP in config ({@code <tls engine="...">}).
 */
public enum TlsEngine {
  /** Netty's OpenSSL engine over BoringSSL ({@code netty-tcnative-boringssl-static}). */
  OPENSSL("openssl"),
  /** The JDK's own JSSE (SunJSSE). */
  JDK("jdk"),
  /** Conscrypt (BoringSSL through JNI) as the JSSE provider. */
  CONSCRYPT("conscrypt"),
  /** Bouncy Castle's pure-Java JSSE provider (BCJSSE). */
  BOUNCY_CASTLE("bouncycastle");

  /**
   * The default, from the handshake measurements in docs/benchmarks.md: BoringSSL completes a full
   * mutually authenticated handshake in about a tenth of JSSE's time on JDK 17.
   */
  public static final TlsEngine DEFAULT = OPENSSL;

  private final String configName;

  TlsEngine(String configName) {
    this.configName = configName;
  }

  /** The name used in configuration files. */
  public String configName() {
    return configName;
  }

  /** The engine named {@code name} in config, or null. */
  public static TlsEngine ofName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    for (TlsEngine e : values()) {
      if (e.configName.equals(n)) {
        return e;
      }
    }
    return null;
  }

  /** Why this engine cannot run here, or null if it can. */
  public String unavailabilityCause() {
    switch (this) {
      case OPENSSL:
        return OpenSsl.isAvailable() ? null : String.valueOf(OpenSsl.unavailabilityCause());
      case CONSCRYPT:
        try {
          org.conscrypt.Conscrypt.checkAvailability();
          return null;
        } catch (Throwable t) {
          return t.toString();
        }
      default:
        return null; // pure Java
    }
  }
}
