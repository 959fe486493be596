package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tunnel client type carries keys: it is open over TLS only, whatever the PEP's protection
 * level allows for other types, and a PDP cannot be configured to grant tunnels without TLS. No
 * charon needed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TunnelAdmissionTest {
  @TempDir Path dir;

  static final String POLICY =
      "<tunnels><gateway name=\"gw-1\" address=\"192.0.2.2\" ike-id=\"gw-1.lab\""
          + " network=\"10.2.0.0/16\"/></tunnels>";

  @Test
  void aPlainConnectionCannotOpenTheTunnelClientType() throws Exception {
    Files.writeString(dir.resolve("tunnels.xml"), POLICY);
    try (PdpServer s =
            Pdps.start(
                dir,
                "<security><tls engine=\"openssl\" dev-pki=\"pki\" client-auth=\"optional\"/>"
                    + "<protection pep=\"*\" level=\"none\"/>"
                    + "<tunnels policy=\"tunnels.xml\"/></security>");
        PepClient plain =
            PepClient.builder()
                .pdp(s.address())
                .pepId("alice")
                .clientType(TunnelRequest.CLIENT_TYPE)
                .reconnect(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .build()) {
      PepException e = SecureCopsTest.refusal(plain.open());
      assertEquals(ErrorCode.AUTHENTICATION_REQUIRED.code(), e.errorCode(), e.getMessage());
      assertEquals(ErrorCode.SUB_CODE_TLS_REQUIRED, e.subCode(), e.getMessage());
    }
  }

  @Test
  void aPdpWithoutTlsGrantsNoTunnels() throws Exception {
    Files.writeString(dir.resolve("tunnels.xml"), POLICY);
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> Pdps.start(dir, "<security>\n<tunnels policy=\"tunnels.xml\"/></security>"));
    assertTrue(
        e.getMessage().contains("pdp.xml:") && e.getMessage().contains("TLS only"), e.getMessage());
  }
}
