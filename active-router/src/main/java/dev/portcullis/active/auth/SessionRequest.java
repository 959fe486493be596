package dev.portcullis.active.auth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.portcullis.active.net.Https;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a user asks the Authorization Server for: run code {@code code} on packets from {@code
 * source} to {@code destination} between SST and SET (Unix seconds). Sent as JSON, signed by the
 * user's private key over the exact bytes sent ({@code Portcullis-Signature} header, ECDSA with
 * SHA-256, base64); {@code time} and {@code nonce} make each request usable once.
 */
public record SessionRequest(
    String user,
    String code,
    String source,
    String destination,
    long sst,
    long set,
    String mac,
    boolean encrypt,
    long time,
    String nonce) {

  /** The JSON bytes to sign and send. */
  public byte[] toJson() throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("user", user);
    m.put("code", code);
    m.put("source", source);
    m.put("destination", destination);
    m.put("sst", sst);
    m.put("set", set);
    m.put("mac", mac);
    m.put("encrypt", encrypt);
    m.put("time", time);
    m.put("nonce", nonce);
    return Https.JSON.writeValueAsBytes(m);
  }

  /**
   * Parses a request body.
   *
   * @throws IllegalArgumentException naming the missing or mistyped field
   */
  public static SessionRequest parse(byte[] json) {
    JsonNode n;
    try {
      n = Https.JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "request is not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("request is not a JSON object");
    }
    return new SessionRequest(
        text(n, "user"),
        text(n, "code"),
        text(n, "source"),
        text(n, "destination"),
        number(n, "sst"),
        number(n, "set"),
        text(n, "mac"),
        bool(n, "encrypt"),
        number(n, "time"),
        text(n, "nonce"));
  }

  private static JsonNode field(JsonNode n, String f) {
    JsonNode v = n.get(f);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException("request field '" + f + "' is missing");
    }
    return v;
  }

  private static String text(JsonNode n, String f) {
    JsonNode v = field(n, f);
    if (!v.isTextual()) {
      throw new IllegalArgumentException("request field '" + f + "' must be a string");
    }
    return v.asText();
  }

  private static long number(JsonNode n, String f) {
    JsonNode v = field(n, f);
    if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
      throw new IllegalArgumentException(
          "request field '" + f + "' must be a non-negative integer");
    }
    return v.asLong();
  }

  private static boolean bool(JsonNode n, String f) {
    JsonNode v = field(n, f);
    if (!v.isBoolean()) {
      throw new IllegalArgumentException("request field '" + f + "' must be true or false");
    }
    return v.asBoolean();
  }
}
