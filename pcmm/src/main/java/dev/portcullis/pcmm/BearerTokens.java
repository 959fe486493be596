package dev.portcullis.pcmm;

import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.SecretFile;
import dev.portcullis.support.XmlConfigReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import org.w3c.dom.Element;

/**
 * Application managers' bearer tokens: random bytes written as hex in a file the operator gives to
 * the application manager; the server keeps only their SHA-256 and compares digests in constant
 * time, so neither a token nor how much of one matched leaves the process.
 */
final class BearerTokens {
  /** Shorter tokens are refused: 128 bits at least. */
  static final int MIN_BYTES = 16;

  private BearerTokens() {}

  /** The digest of the token in the file {@code <application-manager token>} names. */
  static byte[] digest(Element m, Path dir) throws ConfigException {
    boolean create = XmlConfigReader.bool(m, "create");
    Path f =
        create
            ? ConfigFiles.writableFile(m, "token", dir)
            : ConfigFiles.existingFile(m, "token", dir);
    byte[] token = null;
    try {
      if (create && !Files.exists(f)) {
        SecretFile.createRandomHex(f, 32);
      }
      token = parse(Files.readString(f, StandardCharsets.US_ASCII));
      if (token == null || token.length < MIN_BYTES) {
        throw error(
            m,
            "token",
            f
                + " does not hold a token (expected: at least "
                + MIN_BYTES
                + " bytes as hex digits; create=\"true\" makes one)");
      }
      return sha256(token);
    } catch (IOException e) {
      throw error(m, "token", "cannot read " + f + ": " + e.getMessage());
    } finally {
      if (token != null) {
        Arrays.fill(token, (byte) 0);
      }
    }
  }

  /** The token a request's {@code Authorization: Bearer HEX} carries, or null. */
  static byte[] fromHeader(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return null;
    }
    return parse(authorization.substring(7));
  }

  /** Hex digits (whitespace around them ignored) as bytes, or null when they are not. */
  static byte[] parse(String text) {
    try {
      String t = text.strip();
      return t.isEmpty() ? null : HexFormat.of().parseHex(t);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  static byte[] sha256(byte[] token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is in every Java", e);
    }
  }
}
