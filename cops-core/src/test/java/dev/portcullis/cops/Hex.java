package dev.portcullis.cops;

import java.util.HexFormat;

/** Byte vectors written as commented hex: everything after '#' on a line is a comment. */
final class Hex {
  private Hex() {}

  static byte[] bytes(String commented) {
    StringBuilder sb = new StringBuilder();
    for (String line : commented.split("\n")) {
      int hash = line.indexOf('#');
      String code = hash >= 0 ? line.substring(0, hash) : line;
      sb.append(code.replaceAll("[\\s|]", ""));
    }
    return HexFormat.of().parseHex(sb.toString());
  }

  static String of(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
