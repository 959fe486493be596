package dev.portcullis.active.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.Fixtures;
import dev.portcullis.active.TestDomain;
import dev.portcullis.active.cli.ActiveMain;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.HostPort;
import dev.portcullis.support.Prefix;
import dev.portcullis.support.SampleConfigs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RosaConfigTest {
  @TempDir Path tmp;

  /** The sample, copied: what it makes by relative path lands under the test's directory. */
  private Path sample() {
    Path copy = tmp.resolve("config").resolve("rosa.xml");
    return Files.exists(copy) ? copy : SampleConfigs.copyInto(tmp).resolve("rosa.xml");
  }

  @Test
  void theSampleLoads() throws Exception {
    RosaConfig c = RosaConfig.load(sample());
    assertEquals(4, c.codes().size());
    assertEquals(2, c.routers().size());
    assertEquals(Duration.ofHours(2), c.authServer().longestSession());
    assertEquals(
        "127.0.0.1:7502",
        c.routers().get("ar-1").routes().get(0).nextHop().getHostString()
            + ":"
            + c.routers().get("ar-1").routes().get(0).nextHop().getPort());
  }

  private ConfigException broken(String from, String to) throws Exception {
    Path dir = Files.createTempDirectory(tmp, "c");
    return assertThrows(
        ConfigException.class,
        () ->
            TestDomain.config(
                dir,
                xml -> {
                  if (!xml.contains(from)) {
                    throw new AssertionError("sample lacks: " + from);
                  }
                  return xml.replace(from, to);
                }));
  }

  @Test
  void mistakesNameTheFileLineAndAttribute() throws Exception {
    ConfigException e =
        broken("<allow user=\"alice\" code=\"*\"", "<allow user=\"alice\" code=\"taggr\"");
    assertTrue(e.getMessage().contains("rosa.xml:"), e.getMessage());
    assertTrue(e.getMessage().contains("no code 'taggr' is defined"), e.getMessage());
    assertTrue(e.line() > 0);

    e = broken("max-duration=\"PT1H\"", "max-duration=\"PT3H\"");
    assertTrue(e.getMessage().contains("longer than the PT2H"), e.getMessage());

    e = broken("codes=\"counter tagger limiter forward\"", "codes=\"counter nope\"");
    assertTrue(e.getMessage().contains("no code 'nope' is defined"), e.getMessage());

    e = broken("<user name=\"bob\" id=\"1002\"/>", "<user name=\"bob\" id=\"1001\"/>");
    assertTrue(e.getMessage().contains("user id 1001 is used twice"), e.getMessage());

    e = broken("source=\"127.0.0.0/8\"", "source=\"127.0.0.0/40\"");
    assertTrue(e.getMessage().contains("length must be 0 to 32"), e.getMessage());

    e = broken("macs=\"hmac-sha256-128\"", "macs=\"hmac-sha256\"");
    assertTrue(e.getMessage().contains("expected one of hmac-sha256-128"), e.getMessage());

    e = broken("listen=\"127.0.0.1:", "listen=\"127.0.0.1-");
    assertTrue(e.getMessage().contains("rosa.xml:"), e.getMessage());

    // a code whose class is not there, or is not a service, is refused at load, at its line
    e =
        broken(
            "class=\"dev.portcullis.active.service.builtin.PayloadTagger\"",
            "class=\"dev.portcullis.active.service.builtin.PayloadTaggr\"");
    assertTrue(
        e.getMessage().contains("class dev.portcullis.active.service.builtin.PayloadTaggr is not"),
        e.getMessage());
    assertEquals("class", e.attribute());
    assertTrue(e.line() > 0);
    e =
        broken(
            "class=\"dev.portcullis.active.service.builtin.PayloadTagger\"",
            "class=\"java.lang.String\"");
    assertTrue(e.getMessage().contains("does not implement"), e.getMessage());
  }

  /** A PKI directory that is a file is a configuration mistake, found before anything changes. */
  @Test
  void aPkiDirectoryThatIsAFileIsRefusedAndLeftAlone() throws Exception {
    Path file = tmp.resolve("not-a-dir");
    Files.writeString(file, "x");
    FileTime before = Files.getLastModifiedTime(file);
    String perms = PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    ConfigException e = broken("directory=\"pki\"", "directory=\"" + file + "\"");
    assertTrue(e.getMessage().contains("rosa.xml:"), e.getMessage());
    assertTrue(e.getMessage().contains("is a file"), e.getMessage());
    assertEquals(
        perms,
        PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
        "its permissions untouched");
    assertEquals(before, Files.getLastModifiedTime(file));
  }

  @Test
  void prefixesMatchTheirFamilyOnly() {
    Prefix p = Prefix.parse("10.0.0.0/8");
    assertTrue(p.contains(Fixtures.ip("10.200.1.1")));
    assertFalse(p.contains(Fixtures.ip("11.0.0.1")));
    assertFalse(p.contains(Fixtures.ip("::a00:1")), "an IPv6 address is never in an IPv4 prefix");
    Prefix v6 = Prefix.parse("2001:db8::/32");
    assertTrue(v6.contains(Fixtures.ip("2001:db8:ffff::1")));
    assertFalse(v6.contains(Fixtures.ip("2001:db9::1")));
    assertTrue(Prefix.parse("::/0").contains(Fixtures.ip("::1")));
    assertTrue(Prefix.parse("192.0.2.7").contains(Fixtures.ip("192.0.2.7")));
    assertFalse(Prefix.parse("192.0.2.7").contains(Fixtures.ip("192.0.2.8")));
    assertThrows(IllegalArgumentException.class, () -> Prefix.parse("example.com/8"));
  }

  /** Runs the command line; its exit code and what it wrote to stderr. */
  private static Object[] run(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int code = ActiveMain.execute(args);
      return new Object[] {code, err.toString(StandardCharsets.UTF_8).trim()};
    } finally {
      System.setErr(old);
    }
  }

  @Test
  void theCommandLineSaysWhatIsWrongInOneLine() {
    Object[] r = run("demo", "--config", tmp.resolve("missing.xml").toString());
    assertEquals(2, r[0], "a configuration mistake");
    String out = (String) r[1];
    assertTrue(
        out.startsWith("active-router: ") && out.contains("missing.xml: file not found"), out);
    assertEquals(1, out.lines().count(), out);
  }

  @Test
  void noCommandIsOneLineNamingTheCommands() {
    Object[] r = run();
    assertEquals(2, r[0], "a usage mistake");
    String out = (String) r[1];
    assertTrue(out.startsWith("active-router: a command is needed: "), out);
    assertTrue(out.endsWith("see active-router --help"), out);
    assertEquals(1, out.lines().count(), "one line, never the whole usage: " + out);
  }

  @Test
  void anUnknownRouterIdIsNoSuchRouterAndExit2() {
    Object[] r = run("router", "--id", "ar-9", "--config", sample().toString());
    assertEquals(2, r[0]);
    String out = (String) r[1];
    assertTrue(out.startsWith("active-router: no such router 'ar-9' in "), out);
    assertTrue(out.contains("(routers: ar-1, ar-2)"), out);
  }

  /** A router whose UDP port is taken: exit 2 (Cli.Cause.CANNOT_BIND) and the address named. */
  @Test
  void aRouterPortInUseIsTwoAndNamesTheAddress() throws Exception {
    Path rosa = sample();
    InetSocketAddress at = RosaConfig.load(rosa).routers().get("ar-1").listen();
    try (DatagramSocket taken = new DatagramSocket(at)) {
      assertTrue(taken.isBound());
      Object[] r = run("router", "--id", "ar-1", "--config", rosa.toString());
      assertEquals(Cli.Cause.CANNOT_BIND.exitCode, r[0], (String) r[1]);
      String out =
          ((String) r[1])
              .lines()
              .filter(l -> l.startsWith("active-router:"))
              .findFirst()
              .orElse("");
      assertTrue(
          out.startsWith("active-router: cannot listen on " + HostPort.of(at) + " for router ar-1"),
          (String) r[1]);
    }
  }

  @Test
  void durationsOnTheCommandLineTakeUnitsOrIso() {
    String rosa = sample().toString();
    Object[] r = run("router", "--id", "ar-9", "--stats-every", "10x", "--config", rosa);
    assertEquals(2, r[0]);
    assertTrue(((String) r[1]).contains("'10x': expected"), (String) r[1]);
    // a unit form parses: the command goes on to the (unknown) router id
    r = run("router", "--id", "ar-9", "--stats-every", "10s", "--config", rosa);
    assertTrue(((String) r[1]).contains("no such router"), (String) r[1]);
  }
}
