package dev.portcullis.pep.tunnel;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.access.TunnelGrant;
import dev.portcullis.cops.access.TunnelReport;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepException;
import dev.portcullis.pep.PepListener;
import dev.portcullis.support.Lifecycle;
import dev.portcullis.support.Threads;
import dev.portcullis.tunnel.ProtectionObjective;
import dev.portcullis.tunnel.TunnelConnection;
import dev.portcullis.tunnel.TunnelInstaller;
import dev.portcullis.tunnel.TunnelInstaller.Accounting;
import dev.portcullis.tunnel.TunnelKeying;
import dev.portcullis.tunnel.vici.ViciCommandException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tunnel agent (the dynamic VPN tunnels paper's, on strongSwan): a PEP of the tunnel client type
 * ({@code 0xC0A8}, docs/cops-wire.md) that makes its charon hold the tunnels its PDP grants and no
 * others. A <b>client</b> agent asks for its user's tunnel ({@link #request}); on Install it loads
 * the connection and key into charon and initiates; a <b>gateway</b> agent keeps one standing
 * request ({@link #serveGateway}) on which the PDP installs and removes the tunnels that end at it.
 * Each end reports to the PDP: up (Success), failed (Failure: not installed, or charon gone), ended
 * with charon's counters (Accounting).
 *
 * <p>A tunnel lives as long as the PDP holds it: a Remove takes it down and unloads it; so does the
 * loss of the PDP connection (the PDP drops the request state of a PEP it loses, RFC 2748 section
 * 2.5, and a tunnel is that state — fail closed), and so does {@link #close}. A charon that
 * restarts gets every tunnel back ({@link TunnelInstaller}); while it is gone each tunnel is
 * reported failed. Keys are handed to charon and zeroed here.
 *
 * <p>Blocking work (charon's commands, an IKE negotiation) runs on the agent's own thread, never on
 * the PEP's event loop.
 */
public final class TunnelAgent implements Lifecycle {
  private static final Logger log = LoggerFactory.getLogger(TunnelAgent.class);

  /** The handle of a gateway agent's standing request. */
  public static final String STANDING = "gateway";

  /** A client request: incoming, admission control (R-Type 0x1, as the access client type). */
  private static final Context CONTEXT = new Context(Context.R_INCOMING, 0);

  /** What an embedder hears (on the agent's thread). */
  public interface Listener {
    /** charon holds tunnel {@code id} (and, on the client side, it is up). */
    default void up(String id) {}

    /** Tunnel {@code id} is down and gone from charon. */
    default void removed(String id, String reason, Accounting accounting) {}

    /** Tunnel {@code id} is down and could not be held (charon gone, or refused it). */
    default void failed(String id, String why) {}
  }

  /** A refused tunnel request: the PDP's reason. */
  public static final class RefusedException extends Exception {
    private static final long serialVersionUID = 1L;

    public RefusedException(String reason) {
      super(reason);
    }
  }

  /** A tunnel held: on which handle it came, and since when. */
  private record Held(String id, String handle, long since, String inner) {}

  /**
   * How many one-time public keys a gateway's standing request carries: the PDP certifies one for
   * each tunnel to this gateway and each report on a new tunnel brings a fresh one, so this many
   * tunnels can be set up at once without waiting for a key.
   */
  public static final int GATEWAY_KEYS = 32;

  private final AgentKeys keys;
  // client tunnels loaded and held until the PDP says start (the gateway holds its end by then)
  private final Map<String, CompletableFuture<String>> starting = new ConcurrentHashMap<>();
  private final PepClient pep;
  private final TunnelInstaller installer;
  private final Listener listener;
  private final Map<String, Held> held = new ConcurrentHashMap<>();
  private final java.util.concurrent.ScheduledExecutorService work = Threads.owner("tunnel-agent");
  private java.util.concurrent.ScheduledFuture<?> accounting; // on the agent's thread
  private volatile TunnelRequest standing;
  private volatile int keysAhead = GATEWAY_KEYS;
  private volatile boolean closed;
  private final CompletableFuture<Void> ready = new CompletableFuture<>(); // first PDP accept
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  private TunnelAgent(
      PepClient.Builder pep,
      Path vici,
      Duration viciTimeout,
      Listener listener,
      SecureRandom random)
      throws IOException {
    this.listener = listener;
    this.installer = TunnelInstaller.connect(vici, viciTimeout, new Charon());
    this.keys = new AgentKeys(random, installer);
    this.pep = pep.clientType(TunnelRequest.CLIENT_TYPE).listener(new Pdp()).build();
  }

  /**
   * An agent over {@code pep} (its PDP, id and TLS; the client type and listener are the agent's)
   * and the charon at {@code vici}. Fails if charon does not answer now.
   */
  public static TunnelAgent start(
      PepClient.Builder pep, Path vici, Duration viciTimeout, Listener listener)
      throws IOException {
    return start(pep, vici, viciTimeout, listener, new SecureRandom());
  }

  /**
   * An agent as {@link #start(PepClient.Builder, Path, Duration, Listener)}, its one-time keys made
   * from {@code random} (as a JCA key pair generator is initialized with one).
   */
  public static TunnelAgent start(
      PepClient.Builder pep,
      Path vici,
      Duration viciTimeout,
      Listener listener,
      SecureRandom random)
      throws IOException {
    return new TunnelAgent(pep, vici, viciTimeout, listener, random);
  }

  /** Connects to the PDP; completes when it accepts the tunnel client type. */
  public CompletableFuture<Void> open() {
    return pep.open();
  }

  /** The PEP under this agent. */
  public PepClient pep() {
    return pep;
  }

  /**
   * Serves gateway {@code r.gateway()}: the standing request on which the PDP installs the tunnels
   * that end here; sent again whenever the PDP accepts this agent anew. Completes when the PDP
   * accepts it; fails with {@link RefusedException} when it does not.
   */
  public CompletableFuture<Void> serveGateway(TunnelRequest r) {
    return serveGateway(r, GATEWAY_KEYS);
  }

  /**
   * As {@link #serveGateway(TunnelRequest)}, with {@code keysAhead} one-time keys made ahead (0 to
   * {@value TunnelRequest#MAX_PUBLIC_KEYS}): as many tunnels can be set up at once without waiting
   * for a key; 0 makes every tunnel wait for the report of the one before it.
   */
  public CompletableFuture<Void> serveGateway(TunnelRequest r, int keysAhead) {
    if (r.role() != TunnelRequest.Role.GATEWAY) {
      throw new IllegalArgumentException("serveGateway: a gateway's request");
    }
    if (keysAhead < 0 || keysAhead > TunnelRequest.MAX_PUBLIC_KEYS) {
      throw new IllegalArgumentException(
          "keys ahead: " + keysAhead + " (expected: 0 to " + TunnelRequest.MAX_PUBLIC_KEYS + ")");
    }
    this.keysAhead = keysAhead;
    standing = r;
    return sendStanding();
  }

  private CompletableFuture<Void> sendStanding() {
    // fresh keys for a fresh standing request: those sent before were for a PDP that forgot them
    TunnelRequest r = standing.withPublicKeys(keys.freshGatewaySet(keysAhead));
    return pep.exchange(STANDING, CONTEXT, r.toClientSI())
        .thenAccept(
            d -> {
              if (!d.granted()) {
                throw new CompletionException(new RefusedException(reason(d)));
              }
              log.info("gateway {}: the PDP installs its tunnels here", r.gateway());
            });
  }

  /**
   * What tunnel {@code id}'s client sends from, as granted (an address its gateway handed out,
   * where the rule has a pool); null when this agent holds no such tunnel.
   */
  public String inner(String id) {
    Held h = held.get(id);
    return h == null ? null : h.inner();
  }

  /**
   * Asks for a tunnel (client side) on {@code handle}; completes with the tunnel's id once charon
   * has it up, or fails with {@link RefusedException} (the PDP's reason) or charon's refusal.
   */
  public CompletableFuture<String> request(String handle, TunnelRequest r) {
    if (r.role() != TunnelRequest.Role.CLIENT) {
      throw new IllegalArgumentException("request: a client's request");
    }
    if (r.publicKeys().isEmpty()) { // a key of its own for this tunnel: only its public half goes
      r = r.withPublicKeys(List.of(keys.forRequest(handle)));
    }
    // the answer is handled on the agent's thread in the order the PDP sent it, before the start
    // (or the Remove) the PDP sends on this handle after it
    CompletableFuture<String> out = new CompletableFuture<>();
    pep.exchange(
        handle,
        CONTEXT,
        r.toClientSI(),
        work,
        (d, e) -> {
          if (e != null) {
            out.completeExceptionally(e);
            return;
          }
          try {
            answered(handle, d)
                .whenComplete(
                    (id, x) -> {
                      if (x != null) {
                        out.completeExceptionally(x);
                      } else {
                        out.complete(id);
                      }
                    });
          } catch (RuntimeException x) {
            out.completeExceptionally(x instanceof CompletionException c ? c.getCause() : x);
          }
        });
    return out;
  }

  /**
   * The PDP's answer {@code d} to the request on {@code handle} (agent's thread): refused, or the
   * tunnel installed and, where the PDP holds the client until the gateway has its end, waiting for
   * the start. Completes with the tunnel's id once it is up.
   */
  private CompletableFuture<String> answered(String handle, PepDecision d) {
    if (!d.granted()) {
      keys.dropRequest(handle);
      throw new CompletionException(new RefusedException(reason(d)));
    }
    TunnelGrant g = grant(d);
    if (g == null || !g.complete()) {
      pep.delete(handle, ReasonCode.MALFORMED_DECISION);
      throw new CompletionException(
          new RefusedException("the PDP's Install carries no complete tunnel"));
    }
    boolean now = g.startsNow();
    String id = g.tunnelId();
    CompletableFuture<String> started = new CompletableFuture<>();
    if (!now) {
      starting.put(id, started); // before the install: held, it is not reported up
    }
    try {
      install(handle, g, now);
    } catch (IOException e) {
      starting.remove(id);
      // reported failed; deleting the request ends the tunnel at the gateway too
      pep.delete(handle, ReasonCode.UNSPECIFIED);
      throw new CompletionException(e);
    }
    if (now) {
      started.complete(id);
    }
    return started;
  }

  /**
   * Lets the tunnel on {@code handle} go (the user's end, client side): taken down here, its
   * accounting reported, the request deleted. Completes with the accounting.
   */
  public CompletableFuture<Accounting> release(String handle) {
    return CompletableFuture.supplyAsync(
        () -> {
          Accounting a = Accounting.NONE;
          for (Held h : List.copyOf(held.values())) {
            if (h.handle().equals(handle)) {
              a = takeDown(h, "released by the user");
            }
          }
          pep.delete(handle, ReasonCode.MANAGEMENT);
          keys.dropRequest(handle);
          return a;
        },
        work);
  }

  /** The tunnels held now. */
  public List<String> tunnels() {
    return List.copyOf(held.keySet());
  }

  /** Whether charon answers. */
  public boolean charonUp() {
    return installer.charonUp();
  }

  /** Completes the first time a PDP accepts the agent's PEP. */
  @Override
  public CompletableFuture<Void> ready() {
    return ready;
  }

  /** Whether a PDP has the agent's PEP now (without one, no tunnel is held here). */
  @Override
  public boolean isReady() {
    return !closed && pep.isOpen();
  }

  @Override
  public CompletableFuture<Void> stopped() {
    return stopped;
  }

  /** Takes every tunnel down (they are no longer the PDP's), closes the PEP, lets go of charon. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      work.submit(() -> removeAll("agent stopped")).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("tunnels not all removed at close: {}", e.toString());
    }
    work.shutdown();
    pep.close();
    installer.close();
    keys.zeroAll();
    stopped.complete(null);
  }

  // ---- installing and removing (the agent's thread) ---------------------------------------------

  private void install(String handle, TunnelGrant g, boolean initiate) throws IOException {
    TunnelConnection c =
        new TunnelConnection(
            g.tunnelId(),
            g.localAddress().getHostAddress(),
            g.remoteAddress().getHostAddress(),
            g.localId(),
            g.remoteId(),
            g.localTs().toString(),
            g.remoteTs().toString(),
            ProtectionObjective.valueOf(g.objective().name()),
            Duration.ofSeconds(g.lifetimeSeconds()),
            g.virtualIp() == null
                ? null
                : g.virtualIp() == TunnelGrant.VirtualIp.RECEIVED
                    ? new TunnelConnection.VirtualIp(g.localTs().address().getHostAddress(), true)
                    : new TunnelConnection.VirtualIp(
                        g.remoteTs().address().getHostAddress(), false));
    TunnelKeying keys;
    String[] keyAhead = new String[1];
    try {
      keys = keying(handle, g, keyAhead);
    } catch (IOException e) {
      report(handle, failed(g.tunnelId(), e.getMessage()));
      listener.failed(g.tunnelId(), e.getMessage());
      throw e;
    } finally {
      g.zero();
    }
    held.put(
        g.tunnelId(),
        new Held(
            g.tunnelId(),
            handle,
            System.nanoTime(),
            handle.equals(STANDING) ? c.remoteTs() : c.localTs()));
    try {
      installer.install(c, keys, initiate, keyAhead[0]); // reports up via Charon.installed
    } catch (ViciCommandException | IOException | TimeoutException e) {
      held.remove(g.tunnelId());
      forget(g.tunnelId());
      String why = "charon did not take tunnel " + g.tunnelId() + ": " + e.getMessage();
      log.warn("{}", why);
      report(handle, failed(g.tunnelId(), why));
      listener.failed(g.tunnelId(), why);
      throw new IOException(why, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      held.remove(g.tunnelId());
      forget(g.tunnelId());
      throw new IOException("interrupted installing tunnel " + g.tunnelId(), e);
    } finally {
      keys.zero(); // the installer holds its own copy while the tunnel is wanted
    }
  }

  /**
   * The keying of grant {@code g} for charon: its pre-shared key, or the one-time key this agent
   * made for it (the client's for this request; the gateway's that the certificate names) with the
   * three certificates. A gateway makes a fresh key in place of the one taken, for its report.
   *
   * @throws IOException when the certificate is for no key this agent holds
   */
  private TunnelKeying keying(String handle, TunnelGrant g, String[] keyAhead) throws IOException {
    if (!g.certified()) {
      if (!handle.equals(STANDING)) {
        keys.keyedByPsk(handle); // the policy keys this tunnel by a PSK: the key made for it goes
      }
      return new TunnelKeying.SharedKey(g.psk());
    }
    AgentKeys.Keyed k = keys.keying(handle, handle.equals(STANDING), g);
    keyAhead[0] = k.keyAhead();
    return k.keying();
  }

  /** A Failure report, carrying a gateway's fresh key in place of the one the tunnel took. */
  private TunnelReport failed(String id, String why) {
    TunnelReport r = TunnelReport.failed(id, why);
    Bytes fresh = keys.repay(id);
    return fresh == null ? r : r.withPublicKey(fresh);
  }

  /**
   * The PDP's start for tunnel {@code id}, held loaded on {@code handle}: the gateway holds its end
   * now, so the client brings it up.
   */
  private void start(String handle, String id) {
    CompletableFuture<String> f = starting.remove(id);
    if (f == null || !held.containsKey(id)) {
      log.debug("tunnel {}: a start for a tunnel this agent does not hold", id);
      if (f != null) {
        f.completeExceptionally(new IOException("tunnel " + id + " is not held here"));
      }
      return;
    }
    try {
      installer.initiate(id); // reports up through Charon.installed
      f.complete(id);
    } catch (ViciCommandException | IOException | TimeoutException e) {
      String why = "charon did not bring tunnel " + id + " up: " + e.getMessage();
      held.remove(id);
      forget(id);
      log.warn("{}", why);
      report(handle, failed(id, why));
      listener.failed(id, why);
      pep.delete(handle, ReasonCode.UNSPECIFIED); // ends it at the gateway too
      f.completeExceptionally(new IOException(why, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.completeExceptionally(e);
    }
  }

  /** Drops what charon may hold of a tunnel that failed to install. */
  private void forget(String id) {
    try {
      installer.remove(id);
    } catch (Exception e) {
      log.debug("tunnel {}: clean-up after a failed install: {}", id, e.toString());
    }
  }

  private Accounting takeDown(Held h, String reason) {
    if (held.remove(h.id()) == null) {
      return Accounting.NONE;
    }
    CompletableFuture<String> waiting = starting.remove(h.id());
    if (waiting != null) { // taken back before it started
      waiting.completeExceptionally(new RefusedException(reason));
    }
    Accounting a;
    try {
      a = installer.remove(h.id());
    } catch (ViciCommandException | IOException | TimeoutException e) {
      log.warn("tunnel {}: charon did not remove it cleanly: {}", h.id(), e.getMessage());
      a = Accounting.NONE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      a = Accounting.NONE;
    }
    log.info(
        "tunnel {} removed ({}): {} bytes in, {} out, up {} s",
        h.id(),
        reason,
        a.bytesIn(),
        a.bytesOut(),
        a.installedSeconds());
    report(
        h.handle(),
        TunnelReport.down(
            h.id(),
            a.bytesIn(),
            a.bytesOut(),
            a.packetsIn(),
            a.packetsOut(),
            a.installedSeconds(),
            reason));
    listener.removed(h.id(), reason, a);
    return a;
  }

  /**
   * Reports every tunnel up here with its counters every {@code seconds} (the Accounting timer the
   * PDP's Client-Accept gave; none when it gave none), replacing the schedule of an earlier accept.
   */
  private void accountEvery(long seconds) {
    if (accounting != null) {
      accounting.cancel(false);
      accounting = null;
    }
    if (seconds > 0 && !closed) {
      accounting = work.scheduleWithFixedDelay(this::account, seconds, seconds, TimeUnit.SECONDS);
    }
  }

  /** One accounting report per tunnel up here (the agent's thread). */
  private void account() {
    for (Held h : List.copyOf(held.values())) {
      Accounting a;
      try {
        a = installer.counted(h.id());
      } catch (ViciCommandException | IOException | TimeoutException e) {
        log.debug("tunnel {}: no counters now: {}", h.id(), e.getMessage());
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (a != Accounting.NONE) { // the same object: not up (an up tunnel may have counted 0)
        report(
            h.handle(),
            TunnelReport.accounting(
                h.id(),
                a.bytesIn(),
                a.bytesOut(),
                a.packetsIn(),
                a.packetsOut(),
                a.installedSeconds()));
      }
    }
  }

  private void removeAll(String reason) {
    for (Held h : List.copyOf(held.values())) {
      takeDown(h, reason);
    }
  }

  private void report(String handle, TunnelReport r) {
    pep.report(handle, r.state().reportType(), r.toClientSI());
  }

  private static TunnelGrant grant(PepDecision d) {
    Bytes data = d.clientData();
    if (data == null) {
      return null;
    }
    try {
      return TunnelGrant.decode(data);
    } catch (CopsCodecException e) {
      log.warn("tunnel decision unreadable: {}", e.getMessage());
      return null;
    }
  }

  private static String reason(PepDecision d) {
    TunnelGrant g = grant(d);
    return g == null || g.reason() == null ? "refused by the PDP (no reason given)" : g.reason();
  }

  /** A decision the PDP pushed (agent's thread). */
  private void decided(String handle, PepDecision d) {
    TunnelGrant g = grant(d);
    if (handle.equals(STANDING)) {
      if (g == null || g.tunnelId() == null) {
        return; // the standing request itself
      }
      if (d.granted() && g.complete()) {
        try {
          install(STANDING, g, false);
        } catch (IOException e) {
          // reported to the PDP as failed already
        }
      } else if (!d.granted()) {
        Held h = held.get(g.tunnelId());
        if (h != null) {
          takeDown(h, g.reason() == null ? "removed by the PDP" : g.reason());
        }
      }
      return;
    }
    if (d.granted() && g != null && g.isStart()) {
      start(handle, g.tunnelId());
      return;
    }
    if (!d.granted()) { // the PDP took a client's tunnel back
      String reason = g == null || g.reason() == null ? "removed by the PDP" : g.reason();
      for (Held h : List.copyOf(held.values())) {
        if (h.handle().equals(handle)) {
          takeDown(h, reason);
        }
      }
      pep.delete(handle, ReasonCode.PDP_DIRECTIVE);
    }
  }

  private void onWork(Runnable r) {
    if (!closed) {
      work.execute(r);
    }
  }

  /** The PDP's side of things (called on the PEP's event loop: hand over, do not block). */
  private final class Pdp implements PepListener {
    @Override
    public void decisionChanged(String handle, PepDecision decision) {
      onWork(() -> decided(handle, decision));
    }

    @Override
    public void opened(InetSocketAddress pdp, int keepAliveSeconds) {
      ready.complete(null);
      long every = pep.accountingInterval().toSeconds();
      onWork(() -> accountEvery(every));
      if (standing != null) {
        onWork(
            () ->
                sendStanding()
                    .whenComplete(
                        (v, e) -> {
                          if (e != null) {
                            log.warn("standing request refused by {}: {}", pdp, e.getMessage());
                          }
                        }));
      }
    }

    @Override
    public void disconnected(PepException reason) {
      // The PDP dropped this PEP's request state, and with it every tunnel: fail closed.
      onWork(() -> removeAll("PDP connection lost: " + reason.getMessage()));
    }
  }

  /** charon's side of things (the installer's thread, or the agent's during install). */
  private final class Charon implements TunnelInstaller.Listener {
    @Override
    public void installed(String id) {
      Held h = held.get(id);
      if (h != null && !starting.containsKey(id)) { // a held tunnel is up once started
        Bytes fresh = keys.repay(id);
        TunnelReport up = TunnelReport.up(id);
        report(h.handle(), fresh == null ? up : up.withPublicKey(fresh));
        listener.up(id);
      }
    }

    @Override
    public void charonGone(String why) {
      for (Held h : held.values()) {
        String reason = "charon gone: " + why;
        report(h.handle(), TunnelReport.failed(h.id(), reason));
        listener.failed(h.id(), reason);
      }
    }

    @Override
    public void reinstallFailed(String id, String why) {
      Held h = held.get(id);
      if (h != null && h.handle().equals(STANDING)) {
        // the gateway cannot hold it: taken down here and reported so, for the PDP to end it at
        // its client too (a client's end is reported failed: its charon may come back)
        onWork(() -> takeDown(h, "not re-installed at the gateway: " + why));
      } else if (h != null) {
        report(h.handle(), TunnelReport.failed(id, "not re-installed: " + why));
        listener.failed(id, why);
      }
    }
  }
}
