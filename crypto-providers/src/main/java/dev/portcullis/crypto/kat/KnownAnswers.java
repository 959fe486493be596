package dev.portcullis.crypto.kat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.crypto.algorithm.Algorithm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.Provider;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Known-answer tests a provider must pass before it may serve an algorithm: the RFC 2202, RFC 4231,
 * SP 800-38A, GCM-specification and FIPS 180-4 vectors, and the Wycheproof vectors for HMAC,
 * AES-GCM and AES-CBC (see {@code kat/README.md} beside the files for provenance).
 *
 * <p>Besides the answers, each run checks that incremental updates agree with one-shot calls and
 * that invalid inputs (modified tags, bad padding, empty IVs) are rejected.
 */
public final class KnownAnswers {
  private static final String BASE = "/dev/portcullis/crypto/kat/";
  private static final HexFormat HEX = HexFormat.of();

  private KnownAnswers() {}

  /** The vectors for an algorithm, loaded once per JVM. */
  static List<Vector> vectors(Algorithm algorithm) {
    return Holder.VECTORS.getOrDefault(algorithm, List.of());
  }

  /** How many vectors an algorithm has. */
  public static int count(Algorithm algorithm) {
    return vectors(algorithm).size();
  }

  /**
   * Runs every vector of {@code algorithm} against {@code provider}. Never throws for a provider
   * fault: a missing service, an exception or a wrong answer all come back as a failed result.
   */
  public static SelfTestResult run(Provider provider, Algorithm algorithm) {
    List<Vector> vs = vectors(algorithm); // loads the files once, outside the timing
    long start = System.nanoTime();
    int run = 0;
    int skipped = 0;
    try {
      for (Vector v : vs) {
        Outcome o = runOne(provider, v);
        run++;
        if (o == Outcome.DECLINED) {
          skipped++;
        }
      }
      return new SelfTestResult(true, run, skipped, "", System.nanoTime() - start);
    } catch (KatFailure f) {
      return new SelfTestResult(false, run, skipped, f.getMessage(), System.nanoTime() - start);
    } catch (GeneralSecurityException | RuntimeException e) {
      String where = run < vs.size() ? vs.get(run).origin() : "setup";
      return new SelfTestResult(
          false,
          run,
          skipped,
          where + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(),
          System.nanoTime() - start);
    }
  }

  private enum Outcome {
    PASSED,
    DECLINED
  }

  private static final class KatFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    KatFailure(Vector v, String what) {
      super(v.origin() + (v.valid() ? " (valid)" : " (invalid)") + ": " + what, null, false, false);
    }
  }

  private static Outcome runOne(Provider p, Vector v) throws GeneralSecurityException {
    switch (v.algorithm().kind()) {
      case MAC:
        return mac(p, v);
      case DIGEST:
        return digest(p, v);
      case CIPHER:
        return v.algorithm() == Algorithm.AES_GCM ? gcm(p, v) : blockCipher(p, v);
      default:
        throw new AssertionError(v.algorithm().kind());
    }
  }

  private static Outcome mac(Provider p, Vector v) throws GeneralSecurityException {
    String alg = v.algorithm().jcaName();
    Mac mac = Mac.getInstance(alg, p);
    mac.init(new SecretKeySpec(v.key(), alg));
    byte[] oneShot = mac.doFinal(v.input());
    int half = v.input().length / 2;
    mac.update(v.input(), 0, half);
    mac.update(v.input(), half, v.input().length - half);
    if (!Arrays.equals(oneShot, mac.doFinal())) {
      throw new KatFailure(v, "incremental MAC differs from one-shot MAC");
    }
    int n = v.tagBits() / 8;
    boolean matches =
        oneShot.length >= n && MessageDigest.isEqual(Arrays.copyOf(oneShot, n), v.output());
    if (matches != v.valid()) {
      throw new KatFailure(v, v.valid() ? "wrong MAC" : "accepted a modified tag");
    }
    return Outcome.PASSED;
  }

  private static Outcome digest(Provider p, Vector v) throws GeneralSecurityException {
    MessageDigest md = MessageDigest.getInstance(v.algorithm().jcaName(), p);
    byte[] oneShot = md.digest(v.input());
    for (byte b : v.input()) {
      md.update(b);
    }
    if (!Arrays.equals(oneShot, md.digest())) {
      throw new KatFailure(v, "incremental digest differs from one-shot digest");
    }
    if (!Arrays.equals(oneShot, v.output())) {
      throw new KatFailure(v, "wrong digest");
    }
    return Outcome.PASSED;
  }

  private static Outcome gcm(Provider p, Vector v) throws GeneralSecurityException {
    SecretKeySpec key = new SecretKeySpec(v.key(), "AES");
    GCMParameterSpec spec = new GCMParameterSpec(v.tagBits(), v.iv());
    if (!v.valid()) {
      try {
        Cipher c = Cipher.getInstance(v.algorithm().jcaName(), p);
        c.init(Cipher.DECRYPT_MODE, key, spec);
        c.updateAAD(v.aad());
        c.doFinal(v.output());
      } catch (GeneralSecurityException | RuntimeException expected) {
        return Outcome.PASSED;
      }
      throw new KatFailure(v, "decrypted an invalid ciphertext or accepted an invalid IV");
    }
    Cipher enc = Cipher.getInstance(v.algorithm().jcaName(), p);
    try {
      enc.init(Cipher.ENCRYPT_MODE, key, spec);
    } catch (GeneralSecurityException | RuntimeException e) {
      if (!v.standardParameters()) {
        return Outcome.DECLINED;
      }
      throw e;
    }
    enc.updateAAD(v.aad());
    if (!Arrays.equals(enc.doFinal(v.input()), v.output())) {
      throw new KatFailure(v, "wrong ciphertext or tag");
    }
    Cipher dec = Cipher.getInstance(v.algorithm().jcaName(), p);
    dec.init(Cipher.DECRYPT_MODE, key, spec);
    dec.updateAAD(v.aad());
    if (!Arrays.equals(dec.doFinal(v.output()), v.input())) {
      throw new KatFailure(v, "wrong plaintext");
    }
    return Outcome.PASSED;
  }

  private static Outcome blockCipher(Provider p, Vector v) throws GeneralSecurityException {
    String alg = v.algorithm().jcaName();
    SecretKeySpec key = new SecretKeySpec(v.key(), "AES");
    IvParameterSpec iv = new IvParameterSpec(v.iv());
    Cipher c = Cipher.getInstance(alg, p);
    if (!v.valid() && !v.algorithm().plausibleCiphertextLength(v.output().length)) {
      // SunJCE, Conscrypt and ACCP decrypt an empty CBC ciphertext to an empty plaintext
      // instead of rejecting it (Wycheproof "empty ciphertext"). CipherKey rejects lengths that
      // no encryption can produce before a provider sees them, so such vectors test that guard,
      // which holds for every provider.
      return Outcome.PASSED;
    }
    if (!v.valid()) {
      try {
        c.init(Cipher.DECRYPT_MODE, key, iv);
        c.doFinal(v.output());
      } catch (GeneralSecurityException | RuntimeException expected) {
        return Outcome.PASSED;
      }
      throw new KatFailure(v, "decrypted a ciphertext with invalid padding");
    }
    c.init(Cipher.ENCRYPT_MODE, key, iv);
    if (!Arrays.equals(c.doFinal(v.input()), v.output())) {
      throw new KatFailure(v, "wrong ciphertext");
    }
    // Split the input so buffering across update calls is exercised too.
    c.init(Cipher.DECRYPT_MODE, key, iv);
    int half = v.output().length / 2 + 1;
    byte[] first = c.update(v.output(), 0, Math.min(half, v.output().length));
    byte[] rest =
        c.doFinal(
            v.output(), Math.min(half, v.output().length), Math.max(0, v.output().length - half));
    if (!Arrays.equals(concat(first, rest), v.input())) {
      throw new KatFailure(v, "wrong plaintext");
    }
    return Outcome.PASSED;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    a = a == null ? new byte[0] : a;
    b = b == null ? new byte[0] : b;
    byte[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  /** Loads all vectors on first use; the files are part of the jar, so failure is a build bug. */
  private static final class Holder {
    static final Map<Algorithm, List<Vector>> VECTORS = load();

    private static Map<Algorithm, List<Vector>> load() {
      Map<Algorithm, List<Vector>> m = new EnumMap<>(Algorithm.class);
      try {
        csv("mac.csv", m);
        csv("cipher.csv", m);
        csv("digest.csv", m);
        wycheproof("hmac_sha1_test.json", Algorithm.HMAC_SHA1, m);
        wycheproof("hmac_sha256_test.json", Algorithm.HMAC_SHA256, m);
        wycheproof("hmac_sha384_test.json", Algorithm.HMAC_SHA384, m);
        wycheproof("hmac_sha512_test.json", Algorithm.HMAC_SHA512, m);
        wycheproof("aes_gcm_test.json", Algorithm.AES_GCM, m);
        wycheproof("aes_cbc_pkcs5_test.json", Algorithm.AES_CBC, m);
      } catch (IOException e) {
        throw new UncheckedIOException("known-answer vectors missing from the jar", e);
      }
      m.replaceAll((a, l) -> Collections.unmodifiableList(l));
      return Collections.unmodifiableMap(m);
    }

    private static InputStream open(String name) throws IOException {
      InputStream in = KnownAnswers.class.getResourceAsStream(BASE + name);
      if (in == null) {
        throw new IOException("resource not found: " + BASE + name);
      }
      return in;
    }

    private static void csv(String file, Map<Algorithm, List<Vector>> m) throws IOException {
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(open(file), StandardCharsets.UTF_8))) {
        String line;
        int n = 0;
        while ((line = r.readLine()) != null) {
          n++;
          if (line.isBlank() || line.startsWith("#")) {
            continue;
          }
          String[] f = line.split(",", -1);
          Algorithm a = Algorithm.ofJcaName(f[0]);
          String origin = f[f.length - 1] + " (" + file + ":" + n + ")";
          Vector v;
          switch (a.kind()) {
            case MAC:
              byte[] tag = bytes(f[3]);
              v =
                  new Vector(
                      a, origin, bytes(f[1]), null, null, bytes(f[2]), tag, tag.length * 8, true);
              break;
            case DIGEST:
              v = new Vector(a, origin, new byte[0], null, null, bytes(f[1]), bytes(f[2]), 0, true);
              break;
            default:
              v =
                  new Vector(
                      a,
                      origin,
                      bytes(f[1]),
                      bytes(f[2]),
                      bytes(f[3]),
                      bytes(f[4]),
                      bytes(f[5]),
                      a == Algorithm.AES_GCM ? 128 : 0,
                      true);
              break;
          }
          m.computeIfAbsent(a, k -> new ArrayList<>()).add(v);
        }
      }
    }

    private static byte[] bytes(String field) {
      return field.startsWith("ascii:")
          ? field.substring(6).getBytes(StandardCharsets.US_ASCII)
          : HEX.parseHex(field);
    }

    private static void wycheproof(String file, Algorithm a, Map<Algorithm, List<Vector>> m)
        throws IOException {
      JsonNode root;
      try (InputStream in = open("wycheproof/" + file)) {
        root = new ObjectMapper().readTree(in);
      }
      List<Vector> out = m.computeIfAbsent(a, k -> new ArrayList<>());
      for (JsonNode group : root.path("testGroups")) {
        int tagBits = group.path("tagSize").asInt(0);
        for (JsonNode t : group.path("tests")) {
          String result = t.path("result").asText();
          if ("acceptable".equals(result)) {
            continue; // either outcome is allowed: nothing to check against
          }
          boolean valid = "valid".equals(result);
          String origin = "wycheproof " + file + " tcId " + t.path("tcId").asInt();
          byte[] key = HEX.parseHex(t.path("key").asText());
          byte[] msg = HEX.parseHex(t.path("msg").asText());
          Vector v;
          if (a.kind() == Algorithm.Kind.MAC) {
            v =
                new Vector(
                    a,
                    origin,
                    key,
                    null,
                    null,
                    msg,
                    HEX.parseHex(t.path("tag").asText()),
                    tagBits,
                    valid);
          } else {
            byte[] ct = HEX.parseHex(t.path("ct").asText());
            byte[] out2 =
                a == Algorithm.AES_GCM ? concat(ct, HEX.parseHex(t.path("tag").asText())) : ct;
            v =
                new Vector(
                    a,
                    origin,
                    key,
                    HEX.parseHex(t.path("iv").asText()),
                    HEX.parseHex(t.path("aad").asText("")),
                    msg,
                    out2,
                    tagBits,
                    valid);
          }
          out.add(v);
        }
      }
    }
  }
}
