package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A PDP's audit chain head anchored in the fleet's store shows records cut off the end. */
@ExtendWith(FleetEnsemble.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FleetAuditTest {
  @TempDir Path dir;

  @Test
  void cuttingOffTheNewestRecordsIsDetectedAgainstTheFleetsAnchor() throws Exception {
    Files.copy(Path.of("../config/policy-mls.xml"), dir.resolve("policy-mls.xml"));
    DurableFiles.write(dir.resolve("zk.secret"), (FleetEnsemble.IDENTITY + "\n").getBytes());
    Path cfg = dir.resolve("pdp.xml");
    Files.writeString(
        cfg,
        "<pdp><state store=\"zookeeper\" connect=\""
            + FleetEnsemble.connectString()
            + "\" namespace=\""
            + FleetEnsemble.namespace()
            + "\" session-timeout=\"PT6S\" auth-file=\"zk.secret\"/>"
            + "<listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A6\" engine=\"mls\" policy=\"policy-mls.xml\"/>"
            + "<audit file=\"audit.jsonl\"/></pdp>");
    Path log = dir.resolve("audit.jsonl");
    try (PdpServer a = PdpServer.start(PdpConfig.load(cfg), 1);
        BlockingPep pep = new BlockingPep(a.address(), 0xC0A6, "gw-1")) {
      pep.ask("h", FleetMlsTest.read("alice", "intel-db"));
    } // stops: "stopped" recorded, then its head anchored
    String ok =
        FleetPolicyTest.run("verify-audit", "--fleet", "--config", cfg.toString(), log.toString());
    assertTrue(ok.startsWith("0 ") && ok.contains("the fleet's anchor"), ok);

    List<String> lines = Files.readAllLines(log);
    Files.write(log, lines.subList(0, lines.size() - 1)); // the newest record cut off
    String cut =
        FleetPolicyTest.run("verify-audit", "--fleet", "--config", cfg.toString(), log.toString());
    assertTrue(cut.startsWith("1 ") && cut.contains("cut off the end"), cut);
    // without the fleet, the shortened chain looks intact: that is what the anchor is for
    String alone = FleetPolicyTest.run("verify-audit", log.toString());
    assertTrue(alone.startsWith("0 ") && alone.contains("intact"), alone);
  }
}
