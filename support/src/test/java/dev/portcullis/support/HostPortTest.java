package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class HostPortTest {
  @Test
  void addressesAreWrittenAsPeopleWriteThem() throws Exception {
    assertEquals(
        "127.0.0.1:8080",
        HostPort.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080)));
    assertEquals(
        "[0:0:0:0:0:0:0:1]:443",
        HostPort.of(new InetSocketAddress(InetAddress.getByName("::1"), 443)));
    assertEquals(
        "pdp.example:3288", HostPort.of(InetSocketAddress.createUnresolved("pdp.example", 3288)));
    assertNull(HostPort.of(null));
  }

  @Test
  void oneReaderForEveryPlaceThatTakesHostAndPort() {
    assertEquals(
        InetSocketAddress.createUnresolved("pdp.example", 3288),
        HostPort.parse("pdp.example:3288"));
    assertEquals(InetSocketAddress.createUnresolved("::1", 443), HostPort.parse("[::1]:443"));
    assertEquals("10.0.0.1:0", HostPort.of(HostPort.parse("10.0.0.1:0")));
    for (String bad :
        new String[] {"pdp", ":3288", "pdp:", "pdp:70000", "pdp:x", "::1:443", null}) {
      IllegalArgumentException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class, () -> HostPort.parse(bad), String.valueOf(bad));
      org.junit.jupiter.api.Assertions.assertTrue(
          e.getMessage().contains("expected"), e.getMessage());
    }
  }
}
