package dev.portcullis.bench.cost;

import dev.portcullis.bench.CopsLayers;
import dev.portcullis.cops.Context;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepSecurity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A COPS layer's trials: a PDP with the layer's security and PEPs opened against it. */
final class CopsRunner extends LayerRunner {
  final CopsLayers cl;
  final NetworkPaths paths; // null: loopback
  PdpServer pdp;
  PepClient pep; // RR and STREAM on its open connection
  PepClient connecting; // CC and CRR: full handshakes, no requests left installed but CRR's one
  PepClient resuming;
  final Context ctx = new Context(Context.R_INCOMING, 0);
  long n;

  CopsRunner(Layer layer, CopsLayers cl, Batches b, NetworkPaths paths) {
    super(layer, b);
    this.cl = cl;
    this.paths = paths;
  }

  @Override
  List<Metric> metrics() {
    if (layer.path() == NetworkPaths.Route.ESP_IKE) {
      return List.of(Metric.CC_IKE); // the rest is the steady-state ESP layer's
    }
    List<Metric> m = new ArrayList<>(List.of(Metric.CC));
    if (layer.resumed() != null) {
      m.add(Metric.CC_RESUMED);
    }
    m.addAll(
        List.of(
            Metric.RR,
            Metric.CRR,
            Metric.STREAM,
            Metric.SESSION_CONNECT,
            Metric.SESSION_OPERATIONS));
    return m;
  }

  PepClient client(PepSecurity security) {
    return PepClient.builder()
        .pdp(pdp.address())
        .pepId("bench")
        .clientType(layer.clientType())
        .security(security)
        .requestTimeout(Duration.ofSeconds(30))
        .build();
  }

  @Override
  void open() throws Exception {
    NetworkPaths.Route p = layer.path();
    pdp =
        p == null
            ? cl.pdp(layer.clientTypes(), layer.security())
            : paths.inB(() -> cl.pdp(p.server, layer.clientTypes(), layer.security()));
    if (p == NetworkPaths.Route.ESP_IKE) {
      paths.negotiate(); // up for the opening; each trial negotiates its own
    }
    pep = client(layer.full());
    pep.open().get(30, TimeUnit.SECONDS);
    // Its own client: a reconnect tears down the requests installed on the old connection, and
    // the RR and STREAM client has hundreds; CC must measure the connection alone.
    connecting = client(layer.full());
    connecting.open().get(30, TimeUnit.SECONDS);
    if (layer.resumed() != null) {
      resuming = client(layer.resumed());
      resuming.open().get(30, TimeUnit.SECONDS);
    }
  }

  @Override
  long[] resumptions() {
    return resuming == null
        ? null
        : new long[] {
          resuming.resumedHandshakes(), resuming.resumedHandshakes() + resuming.fullHandshakes()
        };
  }

  private double sinceMicros(long t) {
    return (System.nanoTime() - t) / 1e3;
  }

  private void request(PepClient c) throws Exception {
    c.request("h" + (n++ & 1023), ctx, layer.request()).get(30, TimeUnit.SECONDS);
  }

  private double session = -1; // the operations half of the last SESSION_CONNECT trial

  @Override
  double trial(Metric m) throws Exception {
    long t = System.nanoTime();
    switch (m) {
      case CC:
        connecting.reconnect().get(30, TimeUnit.SECONDS);
        return sinceMicros(t);
      case CC_IKE:
        connecting.close(); // no connection over the old SA, then no SA
        paths.down();
        t = System.nanoTime();
        paths.negotiate();
        connecting = client(layer.full());
        connecting.open().get(30, TimeUnit.SECONDS);
        return sinceMicros(t);
      case CC_RESUMED:
        resuming.reconnect().get(30, TimeUnit.SECONDS);
        return sinceMicros(t);
      case RR:
        for (int i = 0; i < rrBatch; i++) {
          request(pep);
        }
        return sinceMicros(t) / rrBatch;
      case CRR:
        connecting.reconnect().get(30, TimeUnit.SECONDS);
        request(connecting);
        return sinceMicros(t);
      case STREAM:
        for (int done = 0; done < streamBatch; done += window) {
          List<CompletableFuture<?>> wave = new ArrayList<>(window);
          for (int i = 0; i < window; i++) {
            wave.add(pep.request("w" + i, ctx, layer.request()));
          }
          CompletableFuture.allOf(wave.toArray(new CompletableFuture<?>[0]))
              .get(60, TimeUnit.SECONDS);
        }
        return streamBatch / ((System.nanoTime() - t) / 1e9);
      case SESSION_CONNECT:
        {
          PepClient c = client(layer.full());
          c.open().get(30, TimeUnit.SECONDS);
          double connect = sinceMicros(t);
          long t1 = System.nanoTime();
          request(c);
          c.close();
          session = sinceMicros(t1);
          return connect;
        }
      case SESSION_OPERATIONS:
        {
          // Measured within SESSION_CONNECT's session, so both halves come from one session.
          double s = session;
          session = -1;
          return s >= 0 ? s : trialSession();
        }
      default:
        throw new IllegalArgumentException(m.toString());
    }
  }

  private double trialSession() throws Exception {
    trial(Metric.SESSION_CONNECT);
    double s = session;
    session = -1;
    return s;
  }

  @Override
  public void close() {
    if (resuming != null) {
      resuming.close();
    }
    if (connecting != null) {
      connecting.close();
    }
    if (pep != null) {
      pep.close();
    }
    if (pdp != null) {
      pdp.close();
    }
  }
}
