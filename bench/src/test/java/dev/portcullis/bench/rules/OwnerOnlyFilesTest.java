package dev.portcullis.bench.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.pcmm.PcmmServer;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pdp.enrol.CredentialStore;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.PepEnrolment;
import dev.portcullis.pep.proxy.PepProxy;
import dev.portcullis.pep.proxy.ProxyConfig;
import dev.portcullis.support.pki.DevCertificates;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every file and directory the product makes is owner-only (docs/security.md, principles 4 and 13):
 * the PDP (its audit log under directories it makes, the development PKI, the credential store with
 * an issued, used and tunnel-spent credential), an agent enrolling (its certificate and key), the
 * PEP proxy (its audit log) and the PCMM server (its audit log and an application manager's token)
 * run in one scratch directory, with the default umask, and everything they made is checked. Only
 * the configuration files this test wrote are left out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OwnerOnlyFilesTest {
  @TempDir Path dir;

  private final Set<Path> ours = new HashSet<>(); // what the test wrote itself

  private Path write(String name, String text) throws Exception {
    Path f = dir.resolve(name);
    Files.createDirectories(f.getParent());
    Files.writeString(f, text);
    ours.add(f);
    return f;
  }

  @Test
  void everyFileAndDirectoryTheServersMakeIsOwnerOnly() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    write("rules.xml", "<rules><default decision=\"install\" reason=\"all\"/></rules>");
    write(
        "tunnels.xml",
        "<tunnels><gateway name=\"gw-1\" address=\"192.0.2.2\" ike-id=\"gw-1.lab\""
            + " network=\"10.2.0.0/16\"/></tunnels>");
    Path pdpXml =
        write(
            "pdp.xml",
            """
            <pdp>
              <listen address="127.0.0.1" port="0"/>
              <client-type code="0xC0A5" engine="rules" policy="rules.xml"/>
              <security><tls engine="openssl" dev-pki="pki" client-auth="optional"/>
                <protection pep="*" level="confidentiality"/>
                <enrolment store="state/credentials" certificate-lifetime="P1D"/>
                <tunnels policy="tunnels.xml"/></security>
              <audit file="logs/pdp/audit.jsonl"/>
            </pdp>
            """);
    // a stranger's files beside what enrolment and the credential store write: left as they are
    Path beside = write("agent/enrolled/mine.txt", "the user's own");
    try (PdpServer pdp = PdpServer.start(PdpConfig.load(pdpXml), 1)) {
      // into the store's own directories, which the PDP made (and which are checked below)
      Path besideStore = dir.resolve("state/credentials/valid/mine.txt");
      Files.writeString(besideStore, "the operator's own");
      ours.add(besideStore);
      CredentialStore store =
          CredentialStore.open(
              dir.resolve("state/credentials"),
              IntegrityKeys.registry(List.of()).digester(Algorithm.SHA_256));
      CredentialStore.Issued otc = store.issue("alice", Duration.ofHours(1));
      PepEnrolment.enrol(
          pdp.address(),
          "alice",
          TlsSettings.development(TlsEngine.OPENSSL, dir.resolve("pki")),
          DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of()).caCertificate(),
          List.of(),
          otc.token(),
          dir.resolve("agent/enrolled/alice.crt"),
          dir.resolve("agent/enrolled/alice.key"));
      assertTrue(store.spendOnTunnel(otc.id(), "t-1"));
      store.issue("bob", Duration.ofHours(1)); // issue-credential's write, a second time
      assertEquals("the user's own", Files.readString(beside));
      assertEquals("the operator's own", Files.readString(besideStore));

      write("proxy/pep.xml", "<pep id=\"proxy-1\"><pdp address=\"127.0.0.1\" port=\"1\"/></pep>");
      Path proxyXml =
          write(
              "proxy/pep-proxy.xml",
              "<pep-proxy pep=\"pep.xml\"><listener name=\"echo\" listen=\"127.0.0.1:0\""
                  + " upstream=\"127.0.0.1:1\" service=\"echo\"/></pep-proxy>");
      ProxyConfig cfg = ProxyConfig.load(proxyXml);
      try (AuditLog proxyAudit = AuditLog.open(dir.resolve("logs/proxy/audit.jsonl"));
          PepProxy proxy =
              new PepProxy(cfg, PepConfig.load(cfg.pep()).clientBuilder(), 1, proxyAudit)) {
        assertTrue(proxy.addresses().size() == 1);
      }
    }

    write("pcmm/policy.xml", "<rules><default decision=\"install\" reason=\"all\"/></rules>");
    Path pcmmXml =
        write(
            "pcmm/pcmm.xml",
            """
            <pcmm-server>
              <policy engine="rules" file="policy.xml"/>
              <audit file="../logs/pcmm/audit.jsonl"/>
              <http listen="127.0.0.1:0">
                <application-manager name="voice" app-type="1" am-tag="0x0203"
                                     token="../secrets/voice.token" create="true"/>
              </http>
              <cmts name="cmts-1" address="127.0.0.1:1"/>
            </pcmm-server>
            """);
    try (PcmmServer pcmm = PcmmServer.start(pcmmXml)) {
      assertTrue(pcmm != null);
    }

    List<String> wide = new ArrayList<>();
    int checked = 0;
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        if (p.equals(dir) || ours.contains(p)) {
          continue;
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
        boolean directory = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
        boolean owned =
            directory && ours.stream().anyMatch(f -> f.startsWith(p))
                // a directory this test made for its own configuration files
                || mode.stream()
                    .noneMatch(m -> m.name().startsWith("GROUP") || m.name().startsWith("OTHERS"));
        if (!owned) {
          wide.add(dir.relativize(p) + " " + PosixFilePermissions.toString(mode));
        }
        checked++;
      }
    }
    assertTrue(checked >= 15, "the servers made their files: " + checked);
    assertEquals(List.of(), wide, "files and directories others can read or enter");
  }
}
