package dev.portcullis.crypto.config;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Any input either loads or fails with {@link ConfigException}: nothing else escapes. */
class CryptoConfigFuzzTest {
  private static final String SAMPLE = read();

  private static String read() {
    try {
      return Files.readString(Path.of("..", "config", "crypto-providers.xml"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses and checks the only two allowed outcomes. */
  private static void loadsOrFailsCleanly(byte[] input) {
    try {
      CryptoConfig c = CryptoConfig.parse(new ByteArrayInputStream(input), "fuzz.xml");
      assertNotNull(c.defaultProviders());
      assertTrue(!c.defaultProviders().isEmpty());
    } catch (ConfigException e) {
      String m = e.getMessage();
      assertTrue(m.startsWith("fuzz.xml"), m);
      assertTrue(!m.isBlank());
    }
  }

  @Example
  void theSampleLoads() throws Exception {
    CryptoConfig.parse(new ByteArrayInputStream(SAMPLE.getBytes(StandardCharsets.UTF_8)), "sample");
  }

  @Property(tries = 300)
  void mutatedSamples(@ForAll("mutations") String xml) {
    loadsOrFailsCleanly(xml.getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 200)
  void arbitraryBytes(@ForAll byte[] input) {
    loadsOrFailsCleanly(input);
  }

  @Property(tries = 200)
  void arbitraryAttributeValues(
      @ForAll("attributes") String attribute, @ForAll("values") String value) {
    String xml =
        "<crypto-providers "
            + attribute
            + "=\""
            + value
            + "\"><default><provider name=\"SunJCE\"/></default>"
            + "<algorithm name=\"HmacSHA256\"><provider name=\"BC\"/></algorithm></crypto-providers>";
    loadsOrFailsCleanly(xml.getBytes(StandardCharsets.UTF_8));
  }

  @Provide
  Arbitrary<String> attributes() {
    return Arbitraries.of("prewarm", "self-test", "watch", "watch-interval", "version", "x");
  }

  @Provide
  Arbitrary<String> values() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "true", "false", "1", "0", "PT1S", "P1Y", "PT-1S", "-1", "", "&amp;", "&lt;"),
        Arbitraries.strings()
            .ofMaxLength(12)
            .map(s -> s.replace("\"", "").replace("&", "").replace("<", "")));
  }

  /** The sample with one region deleted, duplicated or replaced by random characters. */
  @Provide
  Arbitrary<String> mutations() {
    int n = SAMPLE.length();
    Arbitrary<Integer> pos = Arbitraries.integers().between(0, n);
    Arbitrary<Integer> len = Arbitraries.integers().between(0, 40);
    Arbitrary<String> junk =
        Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(8),
            Arbitraries.of(
                "<",
                ">",
                "\"",
                "/>",
                "</algorithm>",
                "<provider name=\"BC\"/>",
                "&",
                "]]>",
                "\u0000"));
    Arbitrary<Integer> kind = Arbitraries.integers().between(0, 2);
    return net.jqwik.api.Combinators.combine(pos, len, junk, kind)
        .as(
            (p, l, j, k) -> {
              int end = Math.min(n, p + l);
              switch (k) {
                case 0:
                  return SAMPLE.substring(0, p) + SAMPLE.substring(end);
                case 1:
                  return SAMPLE.substring(0, end)
                      + SAMPLE.substring(p, end)
                      + SAMPLE.substring(end);
                default:
                  return SAMPLE.substring(0, p) + j + SAMPLE.substring(end);
              }
            });
  }
}
