package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every wire-code enum looks up the same way: defined codes round-trip, others throw, typed. */
class WireCodesTest {
  private static final List<Class<? extends WireCode>> TYPES =
      List.of(
          OpCode.class,
          CNum.class,
          ErrorCode.class,
          ReasonCode.class,
          ReportType.class,
          DecisionCommand.class,
          AccessOperation.class,
          AccessMode.class);

  @Test
  void everyConstantRoundTripsAndNothingElseIsDefined() throws Exception {
    for (Class<? extends WireCode> t : TYPES) {
      var isDefined = t.getMethod("isDefined", int.class);
      var valueOf = t.getMethod("valueOf", int.class);
      int defined = 0;
      for (int code = -1; code <= 300; code++) {
        if ((boolean) isDefined.invoke(null, code)) {
          WireCode c = (WireCode) valueOf.invoke(null, code);
          assertEquals(code, c.code(), t.getSimpleName());
          assertFalse(c.description().isEmpty(), t.getSimpleName());
          defined++;
        }
      }
      assertEquals(t.getEnumConstants().length, defined, t.getSimpleName());
    }
  }

  @Test
  void anUndefinedCodeThrowsNamingTypeAndCode() {
    UnknownWireCodeException e =
        assertThrows(UnknownWireCodeException.class, () -> ErrorCode.valueOf(99));
    assertEquals("ErrorCode 99 is not defined", e.getMessage());
    assertEquals(99, e.code());
    assertTrue(OpCode.isDefined(1));
    assertFalse(OpCode.isDefined(0));
  }
}
