package dev.portcullis.tunnel;

import dev.portcullis.support.Backoff;
import dev.portcullis.support.Threads;
import dev.portcullis.tunnel.vici.ViciClient;
import dev.portcullis.tunnel.vici.ViciCommandException;
import dev.portcullis.tunnel.vici.ViciMessage;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tunnel agent's hands on its charon: it keeps the tunnels it was told to have (connection, key,
 * whether this side initiates) and makes charon hold them. {@link #install} loads the key and the
 * connection and, on the initiating side, brings the tunnel up; {@link #remove} reads the tunnel's
 * accounting, takes it down and unloads it, and zeroes the key. When charon goes away (its socket
 * closes: a crash, a restart), the tunnels are down and the listener hears so at once (fail closed:
 * nothing is reported up that charon does not hold); the installer reconnects with back-off and,
 * once charon answers again, installs every tunnel it still has and brings each up from this end,
 * the responder's too (its peer's IKE_SA is stale and would never be re-established). Keys stay in
 * this object's memory only as long as their tunnel is wanted. Thread-safe.
 */
public final class TunnelInstaller implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TunnelInstaller.class);

  /** What the agent reports on: on the installer's thread, or the caller's for {@link #install}. */
  public interface Listener {
    /** charon holds tunnel {@code id} (installed, and up where this side initiates). */
    default void installed(String id) {}

    /** charon's control socket closed: every tunnel is down until it is back. */
    default void charonGone(String why) {}

    /** charon came back and refused to hold tunnel {@code id} again: it stays down. */
    default void reinstallFailed(String id, String why) {}

    /**
     * charon answers again, and holds every tunnel wanted ({@code failed} of them could not be);
     * heard after {@link #installed} or {@link #reinstallFailed} for each of them.
     */
    default void charonBack(int reinstalled, int failed) {}
  }

  /** What a removed tunnel carried, from charon's counters just before it went. */
  public record Accounting(
      long bytesIn, long bytesOut, long packetsIn, long packetsOut, long installedSeconds) {
    /** Nothing counted: the tunnel was not up. */
    public static final Accounting NONE = new Accounting(0, 0, 0, 0, 0);
  }

  /**
   * The fewest ended certificate tunnels whose certificates charon may keep before they are cleared
   * (with tunnels still wanted; with none, they are cleared at once; with more wanted than this, as
   * many as are wanted). charon keeps every certificate loaded with a connection until {@code
   * clear-creds}: {@code unload-conn} leaves them, and VICI has no command that unloads one
   * (strongSwan 5.9.8 and master, vici_cred.c). Clearing costs a {@code load-key} and a {@code
   * load-conn} per live tunnel, so it is done once per at least as many removals.
   */
  static final int CLEAR_AFTER = 64;

  /** A tunnel loaded this long ago whose IKE_SA never came up no longer holds a clearing back. */
  static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** A tunnel charon should hold: its keys are this object's copy, zeroed when it goes. */
  private static final class Wanted {
    final TunnelConnection connection;
    final TunnelKeying keys;
    volatile boolean initiate; // this end brings it up (a held client's, once started)
    final long loadedAt = System.nanoTime();
    volatile String keyId; // charon's identifier of the loaded private key (one-time key pair)
    volatile boolean up; // its IKE_SA came up: charon needs its credentials no more

    Wanted(TunnelConnection connection, TunnelKeying keys, boolean initiate) {
      this.connection = connection;
      this.keys = keys;
      this.initiate = initiate;
    }
  }

  private final Path socket;
  private final Duration timeout;
  private final Listener listener;
  private final Map<String, Wanted> wanted = new ConcurrentHashMap<>();
  private final ScheduledExecutorService thread = Threads.owner("tunnel-installer");
  private volatile ViciClient charon;
  private volatile boolean closed;
  private final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(5));
  // certificates handed to charon since it last cleared them (SHA-256, hex): anything else it
  // holds is not ours, and then nothing is cleared
  private final Set<String> ours = ConcurrentHashMap.newKeySet();
  private final AtomicInteger ended = new AtomicInteger(); // certificate tunnels since the clear
  // private keys loaded ahead of their tunnels: charon's identifier -> this object's copy
  private final Map<String, Ahead> ahead = new ConcurrentHashMap<>();

  /** A key loaded ahead of its tunnel: its type and a copy (PKCS#8), zeroed when it is used. */
  private record Ahead(String type, byte[] pkcs8) {}

  private volatile boolean foreignSaid;
  // Credentials on their way into or out of charon (a key or shared secret sent while the maps
  // above do not say so yet, or no longer do), and how many such moves ever began: charon's
  // credentials are compared with ours only across a moment in which none moved, so that a key
  // loaded ahead while a tunnel ends is never taken for an operator's (clearIfDue)
  private final AtomicInteger moving = new AtomicInteger();
  private final AtomicLong moves = new AtomicLong();
  // pools of ended tunnels that charon still leased when their tunnel was removed (its IKE_SA
  // not yet destroyed): unloaded at a later removal
  private final Set<String> poolsLeft = ConcurrentHashMap.newKeySet();

  private TunnelInstaller(Path socket, Duration timeout, Listener listener) {
    this.socket = socket;
    this.timeout = timeout;
    this.listener = listener;
  }

  /** Connects to charon's VICI socket (failing if charon is not there now). */
  public static TunnelInstaller connect(Path socket, Duration timeout, Listener listener)
      throws IOException {
    TunnelInstaller i = new TunnelInstaller(socket, timeout, listener);
    i.attach(ViciClient.connect(socket, timeout));
    return i;
  }

  private void attach(ViciClient c) {
    charon = c;
    // a responder's tunnel is up when its IKE_SA is: from then on its credentials may be cleared
    c.subscribe(
            "ike-updown",
            m -> {
              if ("yes".equals(m.text("up"))) {
                for (String name : m.keys()) {
                  Wanted w = wanted.get(name);
                  if (w != null) {
                    w.up = true;
                  }
                }
              }
            })
        .whenComplete(
            (v, e) -> {
              if (e != null && c.isOpen()) {
                log.warn(
                    "charon refused ike-updown events ({}): certificates are cleared only"
                        + " once no tunnel is being set up for a minute",
                    e.getMessage());
              }
            });
    c.onClose(
        why -> {
          if (!closed) { // closing the installer closes its client: nothing to report then
            try {
              thread.execute(() -> lost(c, why));
            } catch (RejectedExecutionException e) {
              // closed meanwhile
            }
          }
        });
  }

  /** True while charon answers. */
  public boolean charonUp() {
    ViciClient c = charon;
    return c != null && c.isOpen();
  }

  /**
   * Has charon hold {@code connection} with {@code psk} (copied: the caller zeroes its own), and
   * bring it up when {@code initiate}. Waits for charon; throws its refusal as it gave it.
   */
  public void install(TunnelConnection connection, byte[] psk, boolean initiate)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    install(connection, new TunnelKeying.SharedKey(psk), initiate);
  }

  /**
   * Has charon hold {@code connection} keyed by {@code keys} (copied: the caller zeroes its own): a
   * pre-shared key, or this end's one-time key pair (its private key loaded into charon, its
   * certificate and the peer's authority in the connection); brings it up when {@code initiate}.
   * Waits for charon; throws its refusal as it gave it.
   */
  public void install(TunnelConnection connection, TunnelKeying keys, boolean initiate)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    install(connection, keys, initiate, null);
  }

  /**
   * As {@link #install(TunnelConnection, TunnelKeying, boolean)}, its private key loaded ahead
   * already as {@code keyAhead} ({@link #loadAhead}; null: not): only the connection is loaded now.
   */
  public void install(
      TunnelConnection connection, TunnelKeying keys, boolean initiate, String keyAhead)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    Wanted w = new Wanted(connection, keys.copy(), initiate);
    moveBegins(); // until its key is the Wanted's, with the identifier charon gave it
    try {
      Ahead a = keyAhead == null ? null : ahead.remove(keyAhead);
      if (a != null && keys instanceof TunnelKeying.OneTimeKeyPair) {
        Arrays.fill(a.pkcs8(), (byte) 0); // the tunnel's own copy is in w
        w.keyId = keyAhead;
      }
      Wanted before = wanted.put(connection.name(), w);
      if (before != null) {
        before.keys.zero();
      }
      load(require(), w, w.initiate);
    } finally {
      moveEnds();
    }
    listener.installed(connection.name());
  }

  /**
   * Loads one-time private key {@code pkcs8} into charon ahead of the tunnel it will key (a client
   * agent while its request is on its way, a gateway's as it makes them), so that installing the
   * tunnel then loads only its connection ({@link #install(TunnelConnection, TunnelKeying, boolean,
   * String)}). Completes with charon's identifier of the key; the caller zeroes its own copy. A key
   * whose tunnel never comes is {@link #dropAhead dropped}.
   */
  public CompletableFuture<String> loadAhead(String type, byte[] pkcs8) {
    ViciClient c = charon;
    if (c == null || !c.isOpen()) {
      return CompletableFuture.failedFuture(new IOException("charon at " + socket + " is gone"));
    }
    byte[] copy = pkcs8.clone();
    moveBegins(); // charon holds it before its identifier is in ahead
    return c.loadKey(type, copy)
        .handle(
            (m, e) -> {
              try {
                if (e != null) {
                  Arrays.fill(copy, (byte) 0);
                  throw new java.util.concurrent.CompletionException(e);
                }
                String id = m.text("id");
                ahead.put(id, new Ahead(type, copy));
                return id;
              } finally {
                moveEnds();
              }
            });
  }

  /** A key loaded ahead whose tunnel never came (a refused request, a gateway's unused key). */
  public void dropAhead(String keyId) {
    moveBegins(); // out of ahead before charon has unloaded it
    Ahead a = keyId == null ? null : ahead.remove(keyId);
    ViciClient c = charon;
    if (a == null || c == null || !c.isOpen()) {
      if (a != null) {
        Arrays.fill(a.pkcs8(), (byte) 0);
      }
      moveEnds();
      return;
    }
    Arrays.fill(a.pkcs8(), (byte) 0);
    c.unloadKey(keyId).whenComplete((m, e) -> moveEnds()); // not awaited: nothing waits on it
  }

  /**
   * Brings installed tunnel {@code id} up from this end (a client that held it, loaded, until its
   * PDP said start); from now on this end also brings it up again after charon restarts. Waits for
   * charon; throws its refusal as it gave it.
   */
  public void initiate(String id)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    Wanted w = wanted.get(id);
    if (w == null) {
      throw new IOException("tunnel " + id + " is not installed here");
    }
    w.initiate = true;
    ViciClient c = require();
    c.await(c.initiateExplained(TunnelConnection.CHILD, id, timeout));
    w.up = true;
    listener.installed(id);
  }

  /**
   * Loads {@code w}'s key and connection into charon; brings it up if {@code initiate}. The key,
   * the connection and (initiating) the initiate are sent at once: charon handles one connection's
   * requests in strict order (vici_socket.c, process_queue), so the initiate finds both loaded, and
   * two round trips are saved. The first refusal is the one thrown.
   */
  private void load(ViciClient c, Wanted w, boolean initiate)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    TunnelConnection t = w.connection;
    var loads = send(c, w);
    var up = initiate ? c.initiateExplained(TunnelConnection.CHILD, t.name(), timeout) : null;
    loaded(c, w, loads);
    if (up != null) {
      c.await(up);
      w.up = true;
    }
  }

  /**
   * Sends {@code w}'s key (unless charon has it already, loaded ahead) and connection to charon;
   * {@link #loaded} waits for both.
   */
  private List<CompletableFuture<ViciMessage>> send(ViciClient c, Wanted w) {
    TunnelConnection t = w.connection;
    if (w.keys instanceof TunnelKeying.OneTimeKeyPair k) {
      ours.add(fingerprint(k.certificate()));
      ours.add(fingerprint(k.authority()));
      if (k.peerCertificate() != null) {
        ours.add(fingerprint(k.peerCertificate()));
      }
    }
    var secret =
        w.keys instanceof TunnelKeying.OneTimeKeyPair k
            ? w.keyId != null
                ? CompletableFuture.completedFuture(ViciMessage.EMPTY)
                : c.loadKey(k.keyType(), k.privateKey())
            : c.loadShared(
                t.name(),
                "IKE",
                ((TunnelKeying.SharedKey) w.keys).key(),
                List.of(t.localId(), t.remoteId()));
    ViciMessage pool = t.pool();
    if (pool != null) {
      // the client's address, handed out from a pool of it alone: loaded before the connection
      // that names it (charon takes one client's commands in order)
      return List.of(secret, c.loadPool(pool), c.loadConn(t.name(), t.toVici(w.keys)));
    }
    return List.of(secret, c.loadConn(t.name(), t.toVici(w.keys)));
  }

  private void loaded(ViciClient c, Wanted w, List<CompletableFuture<ViciMessage>> loads)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    ViciMessage key = c.await(loads.get(0));
    if (w.keys instanceof TunnelKeying.OneTimeKeyPair && key.text("id") != null) {
      w.keyId = key.text("id"); // what unload-key names it by
    }
    for (CompletableFuture<ViciMessage> f : loads.subList(1, loads.size())) {
      c.await(f);
    }
  }

  private static String fingerprint(byte[] certificate) {
    try {
      return HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(certificate));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is a JDK requirement", e);
    }
  }

  /**
   * Takes tunnel {@code id} down at this end and forgets it: its accounting first (what charon
   * counted on its CHILD_SA; none if it was not up), then terminate (at once, not waiting for the
   * peer), unload, and the key zeroed; a terminate charon refuses is thrown once the connection and
   * key are unloaded all the same. With charon gone, the tunnel is only forgotten (charon holds
   * nothing of it).
   */
  public Accounting remove(String id)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    moveBegins(); // out of wanted before its key or shared secret is out of charon
    boolean stillMoving = true;
    Wanted w = wanted.remove(id);
    if (w == null) {
      moveEnds();
      return Accounting.NONE;
    }
    try {
      ViciClient c = charon;
      if (c == null || !c.isOpen()) {
        return Accounting.NONE;
      }
      Accounting a = accounting(c, id);
      ViciCommandException notTerminated = null;
      if (a != Accounting.NONE) {
        try {
          // at once: this end is done with it whatever the peer says (its agent removes its end)
          c.await(c.terminateIkeAtOnce(id));
        } catch (ViciCommandException e) {
          // the peer's delete may come between the accounting and the terminate (both ends
          // remove a revoked tunnel at once): what matters is that it is gone
          if (!c.listSas(id).isEmpty()) {
            notTerminated = e; // said once its connection and key are unloaded all the same
          }
        }
      }
      c.await(c.unloadConn(id));
      if (w.connection.pool() != null) {
        unloadPool(c, id);
      }
      if (w.keys instanceof TunnelKeying.SharedKey) {
        c.await(c.unloadShared(id));
      } else {
        if (w.keyId != null) {
          c.await(c.unloadKey(w.keyId)); // the one-time private key leaves charon with its tunnel
        }
        ended.incrementAndGet();
        stillMoving = false;
        moveEnds();
        try {
          clearIfDue(c);
        } catch (ViciCommandException | IOException | TimeoutException e) {
          // the tunnel is gone all the same, and its accounting is the caller's: the next
          // removal tries the clearing again
          log.warn("charon's credentials not cleared of ended tunnels': {}", e.getMessage());
        }
      }
      if (notTerminated != null) {
        throw notTerminated;
      }
      return a;
    } finally {
      if (stillMoving) {
        moveEnds();
      }
      w.keys.zero();
    }
  }

  /** A key or shared secret of ours begins to move into or out of charon ({@code moving}). */
  private void moveBegins() {
    moves.incrementAndGet();
    moving.incrementAndGet();
  }

  /** A move begun by {@code moveBegins} is over: the maps say what charon holds. */
  private void moveEnds() {
    moving.decrementAndGet();
  }

  /**
   * Clears the certificates of ended tunnels from charon, which keeps every certificate loaded with
   * a connection until {@code clear-creds} ({@link #CLEAR_AFTER}): when as many have ended as there
   * are tunnels wanted, at least {@value #CLEAR_AFTER}, or every tunnel has (loading the live ones
   * again costs a {@code load-key} and a {@code load-conn} each: spread over as many removals); and
   * only when no tunnel is being set up (each wanted tunnel's IKE_SA is up, or was loaded a minute
   * ago), since {@code clear-creds} takes every credential and a negotiation in between would find
   * none, and only when everything charon holds from VICI is this installer's: an operator's own
   * credentials are never cleared (said once, and then the certificates stay until charon
   * restarts). That is judged only across a moment in which no key or shared secret of ours moved
   * into or out of charon (a key loaded ahead is charon's a moment before its identifier is ours;
   * before 2026-11-29 such a key was taken for an operator's); otherwise the next removal tries
   * again. The live tunnels' keys and connections are loaded again at once, in one burst.
   */
  private void clearIfDue(ViciClient c)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    int n = ended.get();
    if (n == 0 || (n < Math.max(CLEAR_AFTER, wanted.size()) && !wanted.isEmpty())) {
      return; // as many ended as there are live to load again: the cost is spread over them
    }
    long now = System.nanoTime();
    for (Wanted w : wanted.values()) {
      if (!w.up && now - w.loadedAt < SETTLE_NANOS) {
        return; // being set up: it needs its credentials now; the next removal tries again
      }
    }
    long movesBefore = moves.get();
    if (moving.get() > 0) {
      return; // a key or secret on its way into or out of charon: the next removal tries again
    }
    String foreign = foreign(c);
    if (moving.get() > 0 || moves.get() != movesBefore) {
      return; // one moved while charon listed what it holds: that list may be a moment's
    }
    if (foreign != null) {
      if (!foreignSaid) {
        foreignSaid = true;
        log.warn(
            "charon at {} holds {} that this agent did not load: the certificates of ended"
                + " tunnels stay in charon (VICI cannot unload one) until it restarts",
            socket,
            foreign);
      }
      return;
    }
    c.await(c.clearCreds());
    ours.clear();
    ended.set(0);
    List<Wanted> live = List.copyOf(wanted.values());
    List<List<CompletableFuture<ViciMessage>>> loads = new java.util.ArrayList<>();
    for (Wanted w : live) {
      w.keyId = null; // cleared with the rest: loaded again below
      loads.add(send(c, w));
    }
    for (Ahead a : ahead.values()) {
      c.loadKey(a.type(), a.pkcs8()); // the same key: the same identifier
    }
    for (int i = 0; i < live.size(); i++) {
      loaded(c, live.get(i), loads.get(i));
    }
    log.debug(
        "charon's credentials cleared of {} ended tunnels' certificates; {} live tunnels' loaded"
            + " again",
        n,
        live.size());
  }

  /**
   * Whether {@code der} is a tunnel's certificate from a PDP's authority ({@code O=Portcullis
   * tunnel}): one an earlier agent on this charon loaded and could not clear (it stopped first).
   */
  private static boolean tunnelCertificate(byte[] der) {
    try {
      var x509 =
          (java.security.cert.X509Certificate)
              java.security.cert.CertificateFactory.getInstance("X.509")
                  .generateCertificate(new java.io.ByteArrayInputStream(der));
      return x509.getSubjectX500Principal().getName().endsWith(",O=Portcullis tunnel");
    } catch (java.security.cert.CertificateException | RuntimeException e) {
      return false;
    }
  }

  /** Null, or what charon holds from VICI that this installer did not load (no secret named). */
  private String foreign(ViciClient c)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    c.await(c.command("flush-certs", ViciMessage.EMPTY)); // certificates cached from peers
    for (ViciMessage cert : c.listCerts()) {
      byte[] der = cert.value("data");
      if (der != null && !ours.contains(fingerprint(der)) && !tunnelCertificate(der)) {
        return "a certificate";
      }
    }
    Set<String> keyIds = new java.util.HashSet<>(ahead.keySet());
    Set<String> shared = new java.util.HashSet<>();
    for (Wanted w : wanted.values()) {
      if (w.keyId != null) {
        keyIds.add(w.keyId);
      }
      if (w.keys instanceof TunnelKeying.SharedKey) {
        shared.add(w.connection.name());
      }
    }
    if (!keyIds.containsAll(c.await(c.getKeys()).list("keys"))) {
      return "a private key";
    }
    if (!shared.containsAll(c.await(c.getShared()).list("keys"))) {
      return "a shared secret";
    }
    return null;
  }

  /**
   * Unloads tunnel {@code id}'s pool, and those of earlier tunnels charon still leased then; one
   * still leased now stays for a later removal (charon refuses to unload a pool with a lease).
   */
  private void unloadPool(ViciClient c, String id)
      throws IOException, TimeoutException, InterruptedException {
    poolsLeft.add(id);
    for (String p : List.copyOf(poolsLeft)) {
      try {
        c.await(c.unloadPool(p));
        poolsLeft.remove(p);
      } catch (ViciCommandException e) {
        if (e.getMessage().contains("not found")) {
          poolsLeft.remove(p); // gone with a charon that restarted
        } else {
          log.debug("pool {} stays for a later removal: {}", p, e.getMessage());
        }
      }
    }
  }

  /**
   * What tunnel {@code id} has carried so far, from charon's counters, leaving it up; {@link
   * Accounting#NONE} if it is not wanted here, not up, or charon is gone.
   */
  public Accounting counted(String id)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    ViciClient c = charon;
    if (!wanted.containsKey(id) || c == null || !c.isOpen()) {
      return Accounting.NONE;
    }
    return accounting(c, id);
  }

  private static Accounting accounting(ViciClient c, String id)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    for (ViciMessage sa : c.listSas(id)) {
      ViciMessage ike = sa.section(id);
      ViciMessage children = ike == null ? null : ike.section("child-sas");
      if (children == null || children.isEmpty()) {
        continue;
      }
      ViciMessage child = children.section(children.keys().get(0));
      return new Accounting(
          number(child, "bytes-in"),
          number(child, "bytes-out"),
          number(child, "packets-in"),
          number(child, "packets-out"),
          number(child, "install-time"));
    }
    return Accounting.NONE;
  }

  private static long number(ViciMessage m, String key) {
    String v = m.text(key);
    try {
      return v == null ? 0 : Long.parseLong(v);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** Tunnels wanted now. */
  public List<String> tunnels() {
    return List.copyOf(wanted.keySet());
  }

  private ViciClient require() throws IOException {
    ViciClient c = charon;
    if (c == null || !c.isOpen()) {
      throw new IOException("charon at " + socket + " is not there: the tunnel is not installed");
    }
    return c;
  }

  // ---- charon gone and back ---------------------------------------------------------------------

  private void lost(ViciClient c, Throwable why) {
    if (closed || c != charon) {
      return;
    }
    log.warn("charon at {} gone ({}): {} tunnels down", socket, why.getMessage(), wanted.size());
    listener.charonGone(why.getMessage());
    backoff.reset();
    thread.schedule(this::reconnect, backoff.nextDelayMillis(), TimeUnit.MILLISECONDS);
  }

  private void reconnect() {
    if (closed) {
      return;
    }
    ViciClient c;
    try {
      c = ViciClient.connect(socket, timeout);
    } catch (IOException e) {
      thread.schedule(this::reconnect, backoff.nextDelayMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    moveBegins(); // every key and secret loaded again, their identifiers recorded as they come
    try {
      reinstall(c);
    } finally {
      moveEnds();
    }
  }

  /** Everything this installer holds loaded into charon {@code c}, back after a restart. */
  private void reinstall(ViciClient c) {
    attach(c);
    for (Ahead a : ahead.values()) {
      c.loadKey(a.type(), a.pkcs8()); // charon forgot them: the same keys, the same identifiers
    }
    int ok = 0;
    int failed = 0;
    for (Wanted w : wanted.values()) {
      String id = w.connection.name();
      w.keyId = null; // charon forgot it: loaded again
      try {
        load(c, w, w.initiate);
        if (!w.initiate && w.connection.pool() != null) {
          // IKEv2 hands a virtual IP only to the initiator that asks for it (RFC 7296, 2.19),
          // and the client's charon does not know this one forgot its IKE_SA: no end can bring
          // it back, so it is said to have failed, for the agent to end it
          failed++;
          String why =
              "it hands out its client's address, which IKEv2 gives only to an initiator that"
                  + " asks (RFC 7296, 2.19): its client must ask for a tunnel again";
          log.warn("tunnel {} not brought back after charon came back: {}", id, why);
          listener.reinstallFailed(id, why);
          continue;
        }
        if (!w.initiate) {
          reinitiate(c, id);
        }
        ok++;
        listener.installed(id);
      } catch (ViciCommandException | IOException | TimeoutException e) {
        failed++;
        log.warn("tunnel {} not re-installed after charon came back: {}", id, e.getMessage());
        listener.reinstallFailed(id, e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    log.info("charon at {} back: {} tunnels re-installed, {} failed", socket, ok, failed);
    listener.charonBack(ok, failed);
  }

  /**
   * The responder's charon came back: its peer's IKE_SA is stale (this charon forgot it), and a
   * peer that initiated once never brings it up again by itself (a gateway restarted, its client's
   * tunnel was down until someone acted), so it is brought up from here. A peer this end cannot
   * reach (a client behind NAT) is not a failure of the tunnel: it stays loaded for the peer.
   */
  private void reinitiate(ViciClient c, String id) throws InterruptedException {
    try {
      c.await(c.initiateExplained(TunnelConnection.CHILD, id, timeout));
    } catch (ViciCommandException | IOException | TimeoutException e) {
      log.info(
          "tunnel {} re-installed; not brought up from this end ({}): it waits for its peer",
          id,
          e.getMessage());
    }
  }

  /**
   * Stops watching charon; the tunnels stay as charon holds them, the keys are zeroed here, and the
   * keys loaded ahead of tunnels that did not come are unloaded.
   */
  @Override
  public void close() {
    closed = true;
    ViciClient c = charon;
    if (c != null) {
      // keys loaded ahead of tunnels that will not come now leave charon (tunnels stay)
      for (String id : ahead.keySet()) {
        try {
          c.await(c.unloadKey(id));
        } catch (ViciCommandException | IOException | TimeoutException e) {
          log.debug("key {} loaded ahead not unloaded at close: {}", id, e.getMessage());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      c.close();
    }
    thread.shutdownNow();
    for (Wanted w : wanted.values()) {
      w.keys.zero();
    }
    wanted.clear();
    for (Ahead a : ahead.values()) {
      Arrays.fill(a.pkcs8(), (byte) 0);
    }
    ahead.clear();
  }
}
