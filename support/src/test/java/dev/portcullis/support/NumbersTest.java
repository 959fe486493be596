package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class NumbersTest {
  @Test
  void nothingWraps() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Numbers.unsigned32("4294967300", "Ci"));
    assertEquals("Ci: '4294967300' is not a whole number from 0 to 4294967295", e.getMessage());
    assertEquals(-1, Numbers.unsigned32("4294967295", "Ci"));
    assertEquals(4, Numbers.unsigned32("4", "Ci"));
    assertThrows(IllegalArgumentException.class, () -> Numbers.unsigned32("-1", "Ci"));
    assertThrows(
        IllegalArgumentException.class, () -> Numbers.unsigned32("99999999999999999999", "Ci"));
    assertThrows(IllegalArgumentException.class, () -> Numbers.unsigned32(" 4", "Ci"));
    assertThrows(IllegalArgumentException.class, () -> Numbers.unsigned32(4294967296L, "epoch"));
  }

  /** Any text: either refused, or exactly the number it spells (never a neighbour mod 2^32). */
  @Property(tries = 2000)
  void anyTextIsExactOrRefused(@ForAll String text) {
    checkExactOrRefused(text);
  }

  @Property(tries = 2000)
  void anyDecimalIsExactOrRefused(@ForAll BigInteger n) {
    checkExactOrRefused(n.toString());
  }

  private static void checkExactOrRefused(String text) {
    long v;
    try {
      v = Integer.toUnsignedLong(Numbers.unsigned32(text, "f"));
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage().startsWith("f: "), e.getMessage());
      return;
    }
    assertEquals(new BigInteger(text), BigInteger.valueOf(v));
  }
}
