package dev.portcullis.cops.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.pki.DevCertificates;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The development PKI's files as Netty reads them. */
class DevCertificatesHandshakeTest {
  @TempDir Path tmp;

  /**
   * The files work as Netty reads them: a TLS 1.3 handshake with mutual authentication between JSSE
   * engines built from them, the client checking the PDP's name, the server seeing the PEP id.
   */
  @Test
  void nettyContextsFromTheFilesCompleteAMutualHandshake() throws Exception {
    var pki = DevCertificates.ensure(tmp.resolve("pki"), List.of(), List.of("gw-1"));
    SslContext server =
        SslContextBuilder.forServer(
                pki.pdp().certificateChain().toFile(), pki.pdp().privateKey().toFile())
            .trustManager(pki.caCertificate().toFile())
            .clientAuth(ClientAuth.REQUIRE)
            .protocols("TLSv1.3")
            .build();
    SslContext client =
        SslContextBuilder.forClient()
            .keyManager(
                pki.peps().get("gw-1").certificateChain().toFile(),
                pki.peps().get("gw-1").privateKey().toFile())
            .trustManager(pki.caCertificate().toFile())
            .protocols("TLSv1.3")
            .endpointIdentificationAlgorithm("HTTPS")
            .build();
    SSLEngine s = server.newEngine(ByteBufAllocator.DEFAULT);
    SSLEngine c = client.newEngine(ByteBufAllocator.DEFAULT, "localhost", 3288);
    InMemoryTls.handshake(c, s);
    assertEquals("TLSv1.3", c.getSession().getProtocol());
    X509Certificate peer = (X509Certificate) s.getSession().getPeerCertificates()[0];
    assertTrue(peer.getSubjectX500Principal().getName().contains("CN=gw-1"));
  }
}
