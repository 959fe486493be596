package dev.portcullis.pcmm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.support.ConfigException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pcmm.xml: defaults from the schema, and every mistake named with its file and line. */
class PcmmConfigTest {
  @TempDir Path dir;

  private PcmmConfig load(String body) throws Exception {
    Path f = dir.resolve("pcmm.xml");
    Files.writeString(f, "<?xml version=\"1.0\"?>\n<pcmm-server>\n" + body + "\n</pcmm-server>\n");
    return PcmmConfig.load(f);
  }

  private String refused(String body) {
    ConfigException e = assertThrows(ConfigException.class, () -> load(body));
    assertTrue(e.getMessage().startsWith(dir.resolve("pcmm.xml").toString()), e.getMessage());
    return e.getMessage();
  }

  @Test
  void theSchemasDefaultsAndPCMMsPort() throws Exception {
    PcmmConfig c =
        load(
            "<limits/>\n<cmts name=\"a\" address=\"192.0.2.1\"/>\n"
                + "<cmts name=\"b\" address=\"[2001:db8::1]\"/>\n"
                + "<cmts name=\"d\" address=\"2001:db8::2\"/>\n"
                + "<cmts name=\"c\" address=\"192.0.2.1:3919\"/>");
    assertEquals(new InetSocketAddress("192.0.2.1", 3918), c.cmtss().get("a"));
    assertEquals(new InetSocketAddress("2001:db8::1", 3918), c.cmtss().get("b"));
    assertEquals(new InetSocketAddress("2001:db8::2", 3918), c.cmtss().get("d"));
    assertEquals(3919, c.cmtss().get("c").getPort());
    assertEquals(PolicyServer.Settings.DEFAULTS, c.settings());
    assertEquals(new PcmmConfig.Limits(8, Set.of()), c.limits());
    assertNull(c.policy());
    assertNull(c.audit());
    assertNull(c.http());
    assertEquals(
        Duration.ofSeconds(5),
        load("<connections ka-timer=\"10\"/><limits/><cmts name=\"a\" address=\"192.0.2.1\"/>")
            .settings()
            .answerTimeout());
  }

  @Test
  void mistakesAreNamedWhereTheyAre() {
    String cmts = "<cmts name=\"a\" address=\"192.0.2.1\"/>";
    assertTrue(refused(cmts).contains("neither <policy> nor <limits>"), refused(cmts));
    String twice = "<limits/>\n" + cmts + "\n" + cmts;
    assertTrue(
        refused(twice).contains(":5:") && refused(twice).contains("defined twice"), refused(twice));
    String sameAddress = "<limits/>\n" + cmts + "\n<cmts name=\"b\" address=\"192.0.2.1:3918\"/>";
    assertTrue(refused(sameAddress).contains("given to another CMTS"), refused(sameAddress));
    String name = "<limits/>\n<cmts name=\"a b\" address=\"192.0.2.1\"/>";
    assertTrue(refused(name).contains("CMTS name \"a b\""), refused(name));
    String host = "<limits/>\n<cmts name=\"a\" address=\"cmts.example\"/>";
    assertTrue(refused(host).contains("literal address"), refused(host));
    String ka = "<connections ka-timer=\"0\"/><limits/>" + cmts;
    assertTrue(refused(ka).contains("ka-timer"), refused(ka));
    String backoff = "<connections reconnect-min=\"5s\" reconnect-max=\"1s\"/><limits/>" + cmts;
    assertTrue(refused(backoff).contains("reconnect-max"), refused(backoff));
    String timeout = "<connections answer-timeout=\"2m\"/><limits/>" + cmts;
    assertTrue(refused(timeout).contains("answer-timeout"), refused(timeout));
    String klass = "<limits service-classes=\"VoIP_UP Way_Too_Long_A_Name\"/>" + cmts;
    assertTrue(refused(klass).contains("Way_Too_Long_A_Name"), refused(klass));
    String noPolicyFile = "<policy file=\"nowhere.xml\"/>" + cmts;
    assertTrue(refused(noPolicyFile).contains("nowhere.xml"), refused(noPolicyFile));
    String unknown = "<limits/><cmts name=\"a\" address=\"192.0.2.1\" port=\"1\"/>";
    assertTrue(refused(unknown).contains("port"), refused(unknown));
  }

  @Test
  void applicationManagersTokensAreMadeOwnerOnlyAndKeptOnlyAsDigests() throws Exception {
    PcmmConfig c =
        load(
            "<limits/><http listen=\"127.0.0.1:0\">"
                + "<application-manager name=\"voice\" app-type=\"1\" am-tag=\"0x0203\""
                + " token=\"secrets/voice.token\" create=\"true\"/></http>"
                + "<cmts name=\"a\" address=\"192.0.2.1\"/>");
    Path token = dir.resolve("secrets/voice.token");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(token)));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(token.getParent())));
    PcmmConfig.ApplicationManager am = c.applicationManagers().get(0);
    assertEquals(new PcmmObject.Amid(1, 0x0203), am.amid());
    byte[] raw = BearerTokens.parse(Files.readString(token, StandardCharsets.US_ASCII));
    assertEquals(32, raw.length);
    assertArrayEquals(BearerTokens.sha256(raw), am.tokenDigest());
    // read again: the same token, not a new one
    assertArrayEquals(
        am.tokenDigest(),
        load("<limits/><http listen=\"127.0.0.1:0\">"
                + "<application-manager name=\"voice\" app-type=\"1\" am-tag=\"0x0203\""
                + " token=\"secrets/voice.token\" create=\"true\"/></http>"
                + "<cmts name=\"a\" address=\"192.0.2.1\"/>")
            .applicationManagers()
            .get(0)
            .tokenDigest());
  }

  @Test
  void aShortMissingOrDuplicatedTokenIsRefused() throws Exception {
    Files.writeString(dir.resolve("short.token"), "00112233\n");
    String am = "<application-manager name=\"x\" app-type=\"1\" am-tag=\"7\" token=\"%s\"/>";
    String cmts = "<cmts name=\"a\" address=\"192.0.2.1\"/>";
    String shortOne = "<limits/><http>" + am.formatted("short.token") + "</http>" + cmts;
    String m = refused(shortOne);
    assertTrue(m.contains("at least 16 bytes") && !m.contains("00112233"), m);
    String missing = "<limits/><http>" + am.formatted("none.token") + "</http>" + cmts;
    assertTrue(refused(missing).contains("none.token"), refused(missing));
    Files.writeString(dir.resolve("ok.token"), "00".repeat(16));
    String sameTag =
        "<limits/><http>"
            + am.formatted("ok.token")
            + am.formatted("ok.token").replace("\"x\"", "\"y\"")
            + "</http>"
            + cmts;
    assertTrue(refused(sameTag).contains("am-tag 7 given to another"), refused(sameTag));
  }

  /**
   * The sample in config/ loads (its token made under target/, as the walk-through runs it: here a
   * copy's, never the checkout's).
   */
  @Test
  void theSampleLoads() throws Exception {
    Path sample = dev.portcullis.support.SampleConfigs.copyInto(dir).resolve("pcmm.xml");
    PcmmConfig c = PcmmConfig.load(sample);
    assertEquals(Set.of("cmts-1", "cmts-2"), c.cmtss().keySet());
    assertEquals("rules", c.policy().engine());
    assertEquals(1, c.applicationManagers().size());
  }

  @Test
  void bearerTokensGoInClearOnlyOnLoopbackOrWhereTheOperatorSaysSo() throws Exception {
    String cmts = "\n<cmts name=\"a\" address=\"192.0.2.1\"/>";
    String am =
        "<application-manager name=\"voice\" app-type=\"1\" am-tag=\"1\" token=\"t\""
            + " create=\"true\"%s/>";
    String e =
        refused("<limits/><http listen=\"0.0.0.0:9466\">" + am.formatted("") + "</http>" + cmts);
    assertTrue(e.contains(":3:") && e.contains("in clear"), e);
    assertTrue(e.contains("insecure=\"true\""), e);
    // said so: taken
    assertEquals(
        9466,
        load("<limits/><http listen=\"0.0.0.0:9466\" insecure=\"true\">"
                + am.formatted("")
                + "</http>"
                + cmts)
            .http()
            .getPort());
    // on loopback, or with no application manager (nothing secret): taken
    assertNull(
        load("<limits/><http listen=\"127.0.0.1:0\">" + am.formatted("") + "</http>" + cmts)
            .httpTls());
    assertNull(load("<limits/><http listen=\"0.0.0.0:0\"/>" + cmts).httpTls());
    // a certificate name with nothing to verify it against
    e =
        refused(
            "<limits/><http listen=\"127.0.0.1:0\">\n"
                + am.formatted(" client-name=\"voice\"")
                + "</http>"
                + cmts);
    assertTrue(e.contains(":4:") && e.contains("client-ca"), e);
  }
}
