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
}
