package dev.portcullis.pdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.portcullis.support.LogLines;
import dev.portcullis.support.pki.DevCertificates;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Issue 47: a PDP listening on 192.0.2.2 with a certificate made for localhost started without a
 * word, and every PEP that named it by its address refused the handshake. It says so at start.
 */
class CertificateNamesListenAddressTest {
  @TempDir Path dir;

  @Test
  void aCertificateThatDoesNotNameTheListenAddressIsSaidAtStart() throws Exception {
    Path chain = DevCertificates.ensure(dir, List.of(), List.of()).pdp().certificateChain();
    var logger = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(PdpSecurityMaterial.class);
    Level was = logger.getLevel();
    logger.setLevel(Level.INFO); // a certificate that names the PDP by DNS name too: said at INFO
    try (LogLines log = LogLines.of(PdpSecurityMaterial.class)) {
      PdpSecurityMaterial.namesTheListenAddress(chain, InetAddress.getByName("192.0.2.2"));
      List<String> w = log.lines();
      assertEquals(1, w.size(), w.toString());
      assertTrue(w.get(0).contains("but not the listen address 192.0.2.2"), w.get(0));
      assertTrue(w.get(0).contains("<authorised-pdp name>"), w.get(0));
    } finally {
      logger.setLevel(was);
    }
  }

  @Test
  void aNamedOrWildcardAddressSaysNothing() throws Exception {
    Path chain =
        DevCertificates.ensure(dir, List.of("192.0.2.2"), List.of()).pdp().certificateChain();
    try (LogLines log = LogLines.of(PdpSecurityMaterial.class)) {
      PdpSecurityMaterial.namesTheListenAddress(chain, InetAddress.getByName("192.0.2.2"));
      PdpSecurityMaterial.namesTheListenAddress(chain, InetAddress.getByName("127.0.0.1"));
      PdpSecurityMaterial.namesTheListenAddress(chain, InetAddress.getByName("0.0.0.0"));
      assertEquals(List.of(), log.lines());
    }
  }
}
