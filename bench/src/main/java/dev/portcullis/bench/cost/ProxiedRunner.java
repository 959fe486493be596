package dev.portcullis.bench.cost;

import dev.portcullis.bench.CopsLayers;
import dev.portcullis.bench.Haproxy;
import dev.portcullis.bench.ProxyFixture;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.proxy.PepProxy;
import dev.portcullis.support.Scratch;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The raw exchanges through a proxy in front of the raw responder: HAProxy (no decision), or the
 * PEP proxy asking a PDP (the base case's one-rule rules engine) once per connection. CC, CRR and
 * SESSION_CONNECT then include the proxy's connect to the responder and, for the PEP proxy, the
 * decision; RR and STREAM run over an open, already decided connection.
 */
final class ProxiedRunner extends RawRunner {
  private final CopsLayers cl;
  private final Path haproxy;
  private Path dir;
  private PdpServer pdp;
  private PepProxy proxy;
  private Haproxy anchor;
  private InetSocketAddress via;

  ProxiedRunner(Layer layer, RawTcp raw, Batches b, CopsLayers cl, Path haproxy) {
    super(layer, raw, b);
    this.cl = cl;
    this.haproxy = haproxy;
  }

  @Override
  InetSocketAddress via() {
    return via;
  }

  @Override
  void open() throws Exception {
    dir = Files.createTempDirectory("portcullis-proxied");
    if (layer.route() == Layer.Route.HAPROXY) {
      anchor = Haproxy.start(haproxy, dir, raw.address());
      via = anchor.address();
    } else {
      pdp = cl.pdp(CopsLayers.trivialRules(), "");
      proxy = ProxyFixture.start(dir, pdp.address(), raw.address(), "ssh"); // the one rule: ssh
      via = proxy.addresses().get(0);
    }
    super.open();
  }

  @Override
  public void close() {
    closeConnection();
    if (proxy != null) {
      proxy.close();
    }
    if (pdp != null) {
      pdp.close();
    }
    if (anchor != null) {
      anchor.close();
    }
    if (dir != null) {
      try {
        Scratch.delete(dir);
      } catch (IOException e) {
        // a temporary directory left behind
      }
    }
  }
}
