package dev.portcullis.cops;

import java.util.Locale;

/**
 * How a COPS connection is protected, named per PEP in config (the dynamic VPN tunnels paper's
 * protection levels). The security objectives each meets are tabulated in docs/tls.md.
 */
public enum ProtectionLevel {
  /** Plain COPS over TCP. */
  NONE("none", false, false),
  /** The HMAC Integrity object on every message (RFC 2748 section 4.2). */
  INTEGRITY("integrity", false, true),
  /** COPS over TLS (RFC 4261). */
  CONFIDENTIALITY("confidentiality", true, false),
  /** TLS and the Integrity object. */
  INTEGRITY_AND_CONFIDENTIALITY("integrity+confidentiality", true, true);

  private final String configName;
  private final boolean tls;
  private final boolean integrity;

  ProtectionLevel(String configName, boolean tls, boolean integrity) {
    this.configName = configName;
    this.tls = tls;
    this.integrity = integrity;
  }

  public String configName() {
    return configName;
  }

  /** True if the level needs TLS. */
  public boolean tls() {
    return tls;
  }

  /** True if the level needs the Integrity object. */
  public boolean integrity() {
    return integrity;
  }

  /** The level named {@code name} in config, or null. */
  public static ProtectionLevel ofName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    for (ProtectionLevel l : values()) {
      if (l.configName.equals(n)) {
        return l;
      }
    }
    return null;
  }

  /** The level of a connection that has {@code tls} and {@code integrity}. */
  public static ProtectionLevel of(boolean tls, boolean integrity) {
    return tls
        ? integrity ? INTEGRITY_AND_CONFIDENTIALITY : CONFIDENTIALITY
        : integrity ? INTEGRITY : NONE;
  }
}
