package dev.portcullis.cops.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.portcullis.support.pki.DevCertificates;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.internal.tcnative.SSL;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Handshakes in memory resume as they do over a socket: TlsHandshakeBenchmark's "resumed" figures
 * are only resumptions if the client got a ticket. With the handshake records alone it never did
 * under TLS 1.3 with the openssl engine (BoringSSL sends a server's tickets with its first
 * application data), and the benchmark timed full handshakes twice.
 */
class InMemoryTlsTest {
  @TempDir Path tmp;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
  void aClientsNextHandshakeWithTheSamePeerResumes(String protocol) throws Exception {
    TlsEngine engine = TlsEngine.ofName("openssl");
    assumeTrue(engine.unavailabilityCause() == null, () -> engine.unavailabilityCause());
    Path pki = tmp.resolve("pki");
    var p = DevCertificates.ensure(pki, List.of(), List.of("gw-1"));
    TlsSettings s = new TlsSettings(engine, List.of(protocol), null, null, null, pki);
    var pep = p.peps().get("gw-1");
    try (CopsTls server =
            CopsTls.server(
                s,
                p.pdp().certificateChain(),
                p.pdp().privateKey(),
                p.caCertificate(),
                ClientAuth.REQUIRE,
                3600,
                0);
        CopsTls client =
            CopsTls.client(s, pep.certificateChain(), pep.privateKey(), p.caCertificate())) {
      List<Boolean> resumed = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        SSLEngine c = client.context().newEngine(ByteBufAllocator.DEFAULT, "localhost", 3288);
        SSLEngine sv = server.context().newEngine(ByteBufAllocator.DEFAULT);
        try {
          InMemoryTls.handshake(c, sv);
          assertEquals(protocol, c.getSession().getProtocol());
          resumed.add(SSL.isSessionReused(((ReferenceCountedOpenSslEngine) c).sslPointer()));
        } finally {
          ReferenceCountUtil.release(c);
          ReferenceCountUtil.release(sv);
        }
      }
      assertEquals(List.of(false, true, true), resumed, "full, then resumed");
    }
  }
}
