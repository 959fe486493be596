package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.cops.tls.TlsEngine;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.support.pki.DevCertificates;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One admission path for every client type (docs/security.md, principle 11): {@code max-handles}
 * holds for each type the PDP serves — the access types, and the tunnel type, whose handler keeps
 * its own request states and was past the limit before (600 tunnel requests decided with {@code
 * max-handles=200}). The enrolment type holds no request state: each REQ is answered and forgotten.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RequestLimitTest {
  static final int MAX = 3;
  static final Context CTX = new Context(Context.R_INCOMING, 0);

  @TempDir Path dir;

  @Test
  void everyClientTypeThatHoldsRequestStateIsUnderMaxHandles() throws Exception {
    var pki = DevCertificates.ensure(dir.resolve("pki"), List.of(), List.of("alice"));
    Pdps.write(dir, "rules.xml", Pdps.RULES);
    Pdps.write(dir, "mls.xml", Pdps.MLS);
    Pdps.write(
        dir,
        "tunnels.xml",
        "<tunnels><gateway name=\"gw-1\" address=\"192.0.2.2\" ike-id=\"gw-1.lab\""
            + " network=\"10.2.0.0/16\"/></tunnels>");
    Path cfg =
        Pdps.write(
            dir,
            "pdp.xml",
            """
            <pdp>
              <listen address="127.0.0.1" port="0"/>
              <limits max-handles="%MAX%"/>
              <client-type code="0xC0A5" engine="rules" policy="rules.xml"/>
              <client-type code="0xC0A6" engine="mls" policy="mls.xml"/>
              <security><tls engine="openssl" dev-pki="pki" client-auth="optional"/>
                <protection pep="*" level="confidentiality"/>
                <enrolment store="credentials" certificate-lifetime="P1D"/>
                <tunnels policy="tunnels.xml"/></security>
              <audit file="audit.jsonl"/>
            </pdp>
            """
                .replace("%MAX%", String.valueOf(MAX)));
    try (PdpServer pdp = PdpServer.start(PdpConfig.load(cfg), 2)) {
      PepSecurity tls =
          new PepSecurity(
              TlsSettings.development(TlsEngine.OPENSSL, dir.resolve("pki")),
              true,
              pki.peps().get("alice").certificateChain(),
              pki.peps().get("alice").privateKey(),
              pki.caCertificate(),
              List.of(),
              PepSecurity.SessionReuse.DEFAULT,
              null);
      List<Integer> types = pdp.config().servedTypes();
      assertEquals(List.of(0xC0A5, 0xC0A6, 0xC0A7, TunnelRequest.CLIENT_TYPE), types);
      for (int type : types) {
        if (type == 0xC0A7) {
          continue; // enrolment: no request state is held (above)
        }
        try (PepClient pep =
            PepClient.builder()
                .pdp(pdp.address())
                .pepId("alice")
                .clientType(type)
                .security(tls)
                .requestTimeout(Duration.ofSeconds(10))
                .build()) {
          pep.open().get(10, TimeUnit.SECONDS);
          ClientSI si = request(type);
          for (int h = 0; h < MAX; h++) {
            PepDecision d = pep.exchange("h" + h, CTX, si).get(10, TimeUnit.SECONDS);
            assertNotEquals(null, d, "type 0x" + Integer.toHexString(type));
          }
          ExecutionException over =
              assertThrows(
                  ExecutionException.class,
                  () -> pep.exchange("h" + MAX, CTX, si).get(10, TimeUnit.SECONDS),
                  "type 0x" + Integer.toHexString(type) + ": one handle past max-handles");
          assertInstanceOf(PepException.class, over.getCause(), over.toString());
          assertEquals(
              ErrorCode.UNABLE_TO_PROCESS,
              ((PepException) over.getCause()).error(),
              "type 0x" + Integer.toHexString(type));
          pep.exchange("h0", CTX, si).get(10, TimeUnit.SECONDS); // an update of a held one
          pep.delete("h1", ReasonCode.MANAGEMENT);
          pep.exchange("h" + MAX, CTX, si).get(10, TimeUnit.SECONDS); // room after a DRQ
        }
      }
    }
  }

  /** A request the type decides (granted or not) and keeps a request state for. */
  static ClientSI request(int type) throws Exception {
    if (type == TunnelRequest.CLIENT_TYPE) {
      return TunnelRequest.client(
              "alice",
              "gw-1",
              InetAddress.getByName("192.0.2.1"),
              TrafficSelector.parse("10.1.0.1/32"),
              TunnelRequest.Objective.CONFIDENTIALITY,
              "alice",
              null)
          .toClientSI();
    }
    return PdpPepIntegrationTest.ssh("alice").toClientSI();
  }
}
