package dev.portcullis.nativecrypto;

/**
 * The AES modes of the native provider, each with the code {@code pn_cipher_new} in pn_core.c takes
 * for it (the JNI's wire, so to speak: written once, here and there).
 */
enum AesMode {
  GCM(1, "GCM", "NoPadding"),
  CTR(2, "CTR", "NoPadding"),
  CBC(3, "CBC", "PKCS5Padding");

  /** What {@code NativeCrypto.cipherNew} passes to pn_core.c. */
  final int code;

  /** The JCA mode name and the one padding it accepts. */
  final String jcaName;

  final String padding;

  AesMode(int code, String jcaName, String padding) {
    this.code = code;
    this.jcaName = jcaName;
    this.padding = padding;
  }
}
