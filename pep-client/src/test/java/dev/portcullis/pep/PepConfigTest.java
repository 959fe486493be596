package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ProtectionLevel;
import dev.portcullis.support.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PepConfigTest {
  @TempDir Path dir;

  PepConfig load(String xml) throws Exception {
    Path f = dir.resolve("pep.xml");
    Files.writeString(f, xml);
    return PepConfig.load(f);
  }

  @Test
  void theTlsSampleConfigurationLoads() throws Exception {
    // a copy: its development certificates are made under the test's directory, not the checkout's
    Path sample = dev.portcullis.support.SampleConfigs.copyInto(dir).resolve("pep-tls.xml");
    try (PepConfig c = PepConfig.load(sample)) {
      assertEquals("gw-1", c.pepId());
      assertEquals(0xC0A5, c.clientType());
      assertEquals(3288, c.pdp().getPort());
      PepSecurity s = c.security();
      assertEquals(ProtectionLevel.CONFIDENTIALITY, s.level());
      assertEquals(List.of("127.0.0.1", "localhost"), s.authorisedPdps());
      assertEquals(new PepSecurity.SessionReuse(Duration.ofHours(1), 100), s.sessionReuse());
      assertTrue(Files.isReadable(s.certificate()), "development certificate made");
    }
  }

  @Test
  void aPlainPepHasNoSecurity() throws Exception {
    try (PepConfig c = load("<pep id=\"gw-9\"/>")) {
      assertNull(c.security());
      assertEquals(0xC0A5, c.clientType());
    }
  }

  @Test
  void aFleetsPdpsAreListedInOrder() throws Exception {
    try (PepConfig c =
        load(
            "<pep id=\"gw-9\"><pdp address=\"127.0.0.1\" port=\"3301\"/>"
                + "<pdp address=\"127.0.0.1\" port=\"3302\"/></pep>")) {
      assertEquals(List.of(3301, 3302), c.pdps().stream().map(a -> a.getPort()).toList());
      assertEquals(3301, c.pdp().getPort(), "the first is home");
    }
    try (PepConfig c = load("<pep id=\"gw-9\"/>")) {
      assertEquals(List.of(3288), c.pdps().stream().map(a -> a.getPort()).toList());
    }
  }

  @Test
  void integrityKeysAreMadeAndRead() throws Exception {
    try (PepConfig c =
        load(
            "<pep id=\"gw-9\"><security level=\"integrity\"><integrity>"
                + "<key id=\"3\" secret-file=\"k.hex\" create=\"true\"/></integrity></security></pep>")) {
      assertNotNull(c.security().keys());
      assertEquals(ProtectionLevel.INTEGRITY, c.security().level());
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("k.hex"))));
    }
  }

  @Test
  void aKeyMadeInAMissingDirectoryMakesItOwnerOnly() throws Exception {
    // The development PKI and the Integrity key share a directory in the samples: whichever is
    // made first must not leave it readable by others (a fresh clone warned about it).
    try (PepConfig c =
        load(
            "<pep id=\"gw-9\"><security level=\"integrity\"><integrity>"
                + "<key id=\"3\" secret-file=\"keys/sub/k.hex\" create=\"true\"/></integrity>"
                + "</security></pep>")) {
      assertNotNull(c.security().keys());
      for (Path d : List.of(dir.resolve("keys"), dir.resolve("keys/sub"))) {
        assertEquals(
            "rwx------",
            PosixFilePermissions.toString(Files.getPosixFilePermissions(d)),
            d.toString());
      }
    }
  }

  @Test
  void mistakesNameTheirPlace() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> load("<pep id=\"gw-9\">\n<security level=\"confidentiality\"/></pep>"));
    assertEquals(2, e.line());
    assertEquals("level", e.attribute());
    assertTrue(e.getMessage().contains("add <tls>"), e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () ->
                load(
                    "<pep id=\"gw-9\"><security><integrity><key id=\"1\" secret-file=\"none.hex\"/>"
                        + "</integrity></security></pep>"));
    assertTrue(e.getMessage().contains("not found"), e.getMessage());
    e =
        assertThrows(
            ConfigException.class, () -> load("<pep id=\"gw-9\" client-type=\"0x10000\"/>"));
    assertEquals("client-type", e.attribute());
  }

  @Test
  void theCryptoTableIsCheckedWhereItIsNamedEvenWithoutSecurity() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> load("<pep id=\"gw-9\">\n<crypto config=\"nowhere.xml\"/></pep>"));
    assertEquals(2, e.line());
    assertEquals("config", e.attribute());
    assertTrue(e.getMessage().contains("nowhere.xml"), e.getMessage());
  }
}
