package dev.portcullis.active.code;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.BigRange;

/** The Code Server's request paths: a number is served as itself or refused, never wrapped. */
class ResourcePropertyTest {
  private static final BigInteger UINT32 = BigInteger.ONE.shiftLeft(32);

  @Property(tries = 1000)
  void codesAndEpochsAreExactOrRefused(
      @ForAll @BigRange(min = "0", max = "99999999999999999999") BigInteger code,
      @ForAll @BigRange(min = "0", max = "99999999999999999999") BigInteger epoch) {
    String path = "/v1/codes/" + code + "/secrets/" + epoch;
    CodeServer.Resource r;
    try {
      r = CodeServer.Resource.parse(path);
    } catch (IllegalArgumentException e) {
      assertEquals(true, code.compareTo(UINT32) >= 0 || epoch.compareTo(UINT32) >= 0, path);
      return;
    }
    assertEquals(code.longValueExact(), Integer.toUnsignedLong(r.code()));
    assertEquals(epoch.longValueExact(), Integer.toUnsignedLong(r.epoch()));
  }

  @Property(tries = 500)
  void anyPathIsAResourceOrARefusal(@ForAll String path) {
    try {
      CodeServer.Resource.parse(path);
    } catch (IllegalArgumentException expected) {
      // refused with a message: fine
    }
  }
}
