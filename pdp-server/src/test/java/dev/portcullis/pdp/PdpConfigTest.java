package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PdpConfigTest {
  @TempDir Path dir;

  PdpConfig load(String xml) throws Exception {
    Path f = dir.resolve("pdp.xml");
    Files.writeString(f, xml);
    return PdpConfig.load(f);
  }

  @Test
  void theSampleConfigurationLoads() throws Exception {
    PdpConfig c = PdpConfig.load(Path.of("..", "config", "pdp.xml"));
    assertEquals(3288, c.port());
    assertEquals(Duration.ofSeconds(30), c.keepAlive());
    assertEquals(2, c.clientTypes().size());
    assertTrue(c.clientTypes().get(0xC0A5).policy().endsWith("policy-rules.xml"));
    assertTrue(c.redirects().get(0).applies("legacy-7", 0xC0A5));
  }

  @Test
  void defaultsApply() throws Exception {
    PdpConfig c =
        load("<pdp><client-type code=\"0xC0A5\" engine=\"rules\" policy=\"r.xml\"/></pdp>");
    assertEquals("127.0.0.1", c.address().getHostAddress());
    assertEquals(3288, c.port());
    assertEquals(Duration.ofSeconds(10), c.handshake());
    assertEquals(65536, c.maxHandles());
    assertNull(c.audit());
    assertEquals(
        dir.resolve("r.xml").toAbsolutePath(),
        c.clientTypes().get(0xC0A5).policy().toAbsolutePath());
  }

  @Test
  void mistakesNameTheirPlace() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "<pdp>\n<listen port=\"70000\"/>\n<client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>"));
    assertEquals(2, e.line());
    assertEquals("listen", e.element());
    assertEquals("port", e.attribute());
    assertEquals(
        "keepalive",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<pdp><timers keepalive=\"PT70000S\"/><client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>"))
            .attribute());
    assertEquals(
        "address",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<pdp><listen address=\"localhost\"/><client-type code=\"1\" engine=\"rules\" policy=\"r\"/></pdp>"))
            .attribute());
    assertEquals(
        "code",
        assertThrows(
                ConfigException.class,
                () ->
                    load(
                        "<pdp><client-type code=\"1\" engine=\"rules\" policy=\"r\"/><client-type code=\"0x1\" engine=\"mls\" policy=\"r\"/></pdp>"))
            .attribute());
    assertTrue(
        assertThrows(ConfigException.class, () -> load("<pdp/>"))
            .getMessage()
            .contains("client-type"));
  }

  @Test
  void anUnknownEngineIsRefusedAtStart() throws Exception {
    Files.writeString(dir.resolve("r.xml"), "<rules><default decision=\"remove\"/></rules>");
    PdpConfig c =
        load(
            "<pdp><listen port=\"0\"/><client-type code=\"1\" engine=\"oracle\" policy=\"r.xml\"/></pdp>");
    ConfigException e = assertThrows(ConfigException.class, () -> PdpServer.start(c, 1));
    assertTrue(e.getMessage().contains("engine oracle (expected: one of"), e.getMessage());
  }
}
