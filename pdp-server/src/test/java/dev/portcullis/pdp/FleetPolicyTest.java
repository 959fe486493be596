package dev.portcullis.pdp;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.Decision;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.cli.PdpMain;
import dev.portcullis.state.StateStore;
import dev.portcullis.support.Cli;
import dev.portcullis.support.DurableFiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Policy versions in a fleet: published once, loaded by every member, pushed to every PEP. */
@ExtendWith(FleetEnsemble.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FleetPolicyTest {
  static final int MLS = 0xC0A6;
  static final AccessRequest READ = AccessRequest.access("alice", "intel-db", AccessMode.READ);

  @TempDir Path dir;

  /** A member in its own directory, with its own copy of the sample MLS policy. */
  Path member(String name, String ns) throws Exception {
    Path d = Files.createDirectories(dir.resolve(name));
    Files.copy(Path.of("../config/policy-mls.xml"), d.resolve("policy-mls.xml"));
    DurableFiles.write(d.resolve("zk.secret"), (FleetEnsemble.IDENTITY + "\n").getBytes());
    Path cfg = d.resolve("pdp.xml");
    Files.writeString(
        cfg,
        "<pdp><state store=\"zookeeper\" connect=\""
            + FleetEnsemble.connectString()
            + "\" namespace=\""
            + ns
            + "\" session-timeout=\"PT6S\" auth-file=\"zk.secret\"/>"
            + "<listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\"/></pdp>");
    return cfg;
  }

  static String run(String... args) {
    StringWriter out = new StringWriter();
    CommandLine cl = Cli.of("pdp-server", new PdpMain());
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(out));
    int rc = cl.execute(args);
    return rc + " " + out;
  }

  @Test
  void aPublishedPolicyIsLoadedByEveryMemberAndPushed() throws Exception {
    String ns = FleetEnsemble.namespace();
    Path cfgA = member("a", ns);
    Path cfgB = member("b", ns);
    try (PdpServer a = PdpServer.start(PdpConfig.load(cfgA), 1);
        PdpServer b = PdpServer.start(PdpConfig.load(cfgB), 1);
        BlockingPep atA = new BlockingPep(a.address(), MLS, "proxy-a");
        BlockingPep atB = new BlockingPep(b.address(), MLS, "proxy-b")) {
      assertTrue(atB.ask("login", AccessRequest.login("alice", 2, List.of("NATO"))));
      FleetMlsTest.awaitInstalled(atA, READ);
      assertTrue(atB.ask("access", READ));
      // intel-db raised to TOP_SECRET: alice (SECRET) may no longer read it, on either PDP
      Path raised = dir.resolve("raised.xml");
      Files.writeString(
          raised,
          Files.readString(cfgA.resolveSibling("policy-mls.xml"))
              .replace(
                  "name=\"intel-db\" level=\"SECRET\"", "name=\"intel-db\" level=\"TOP_SECRET\""));
      String r =
          run(
              "publish-policy",
              "--config",
              cfgA.toString(),
              "--client-type",
              "0xC0A6",
              raised.toString());
      assertTrue(r.startsWith("0 published"), r);
      for (BlockingPep pep : List.of(atA, atB)) {
        Decision d = pep.pushed(10_000);
        assertNotNull(d, "no push after the publication");
        assertFalse(BlockingPep.installs(d));
      }
      String status =
          await()
              .pollInterval(Duration.ofMillis(50))
              .until(
                  () -> run("fleet-status", "--config", cfgB.toString()),
                  s -> s.split("v1 running").length > 2);
      assertTrue(status.contains("published: v1"), status);
      assertEquals(3, status.split("v1 running").length, "both members run v1:\n" + status);

      // a version no member can load is refused, and the running one stays
      try (StateStore s = FleetEnsemble.member(ns)) {
        assertEquals(2, FleetPolicies.publish(s, MLS, "<mls><broken".getBytes()));
      }
      assertNull(atB.pushed(1_000), "nothing pushed for a refused version");
      assertFalse(atB.ask("access", READ), "still the TOP_SECRET policy");
      status =
          await()
              .pollInterval(Duration.ofMillis(50))
              .until(
                  () -> run("fleet-status", "--config", cfgA.toString()),
                  s -> s.contains("v2 refused here"));
      assertTrue(status.contains("v2 refused here"), status);

      // a reload on one member publishes its file: back to SECRET everywhere
      Files.copy(
          Path.of("../config/policy-mls.xml"),
          cfgA.resolveSibling("policy-mls.xml"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      a.reload(MLS);
      FleetMlsTest.awaitInstalled(atB, READ); // B follows A's reload
    }
  }

  @Test
  void publishingChecksTheFileFirstAndNeedsAFleet() throws Exception {
    Path cfg = member("c", FleetEnsemble.namespace());
    Path bad = dir.resolve("bad.xml");
    Files.writeString(bad, "<mls>\n<levels><level name=\"X\" rank=\"zero\"/></levels></mls>");
    String r =
        run(
            "publish-policy",
            "--config",
            cfg.toString(),
            "--client-type",
            "0xC0A6",
            bad.toString());
    assertTrue(r.startsWith("1 ") && r.contains("bad.xml"), r);
    r =
        run(
            "publish-policy",
            "--config",
            cfg.toString(),
            "--client-type",
            "0xC0A5",
            bad.toString());
    assertTrue(r.startsWith("2 ") && r.contains("not served"), r);
    r = run("fleet-status", "--config", "../config/pdp.xml");
    assertTrue(r.startsWith("2 ") && r.contains("not a fleet"), r);
  }
}
