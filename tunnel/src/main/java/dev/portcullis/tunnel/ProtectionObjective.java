package dev.portcullis.tunnel;

import java.util.List;
import java.util.Locale;

/**
 * What a tunnel protects, as the dynamic VPN tunnels paper names the choices (its table 3: native,
 * AH, ESP, AH+ESP against the security objectives), mapped to what strongSwan can do on our
 * machines. The reasoning, in docs/tunnels.md:
 *
 * <ul>
 *   <li>{@link #NONE}: no security service: no tunnel at all (traffic goes as it would anyway).
 *   <li>{@link #INTEGRITY}: integrity and origin authentication without confidentiality: ESP with
 *       NULL encryption (RFC 2410) and HMAC-SHA-256. The paper's AH; AH would also cover the outer
 *       header, but userspace ESP (kernel-libipsec) has no AH, and ESP-NULL gives the objectives
 *       table 3 marks for AH.
 *   <li>{@link #CONFIDENTIALITY}: confidentiality with integrity: ESP with AES-GCM (AEAD).
 *       Confidentiality without integrity is never offered: ESP encryption without an integrity
 *       check is open to active attacks (RFC 4303, section 3.2.2).
 *   <li>{@link #AH_AND_ESP}: refused with the reason: strongSwan negotiates one protocol per
 *       CHILD_SA, so AH and ESP together cannot be had from it.
 * </ul>
 */
public enum ProtectionObjective {
  NONE("none", List.of()),
  INTEGRITY("integrity", List.of("null-sha256")),
  CONFIDENTIALITY("confidentiality", List.of("aes256gcm16", "aes128gcm16")),
  AH_AND_ESP("ah+esp", List.of());

  private final String configName;
  private final List<String> espProposals;

  ProtectionObjective(String configName, List<String> espProposals) {
    this.configName = configName;
    this.espProposals = espProposals;
  }

  /** The name configurations and requests use. */
  public String configName() {
    return configName;
  }

  /** Whether a tunnel is made for it at all. */
  public boolean needsTunnel() {
    return this == INTEGRITY || this == CONFIDENTIALITY;
  }

  /**
   * charon's ESP proposals for it, strongest first.
   *
   * @throws IllegalStateException for {@link #NONE} (no tunnel) and {@link #AH_AND_ESP}, with why
   */
  public List<String> espProposals() {
    String why = refusal();
    if (why != null) {
      throw new IllegalStateException(why);
    }
    return espProposals;
  }

  /** Why no tunnel is made for it, or null when one is. */
  public String refusal() {
    return switch (this) {
      case NONE -> "protection objective none: no tunnel is made";
      case AH_AND_ESP ->
          "protection objective ah+esp: strongSwan negotiates one IPsec protocol per CHILD_SA, so"
              + " AH and ESP together cannot be had; ask for confidentiality (ESP with AES-GCM,"
              + " which also protects integrity)";
      default -> null;
    };
  }

  /**
   * The objective named {@code name} ({@code none}, {@code integrity}, {@code confidentiality},
   * {@code ah+esp}).
   */
  public static ProtectionObjective of(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    for (ProtectionObjective o : values()) {
      if (o.configName.equals(n)) {
        return o;
      }
    }
    throw new IllegalArgumentException(
        "protection objective: " + name + " (expected: none, integrity, confidentiality, ah+esp)");
  }
}
