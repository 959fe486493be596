package dev.portcullis.pdp.fleet;

import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreEvent;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.StorePaths;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's members and their load: each PDP keeps a leased entry {@code /members/HOST_PORT}
 * holding {@code v1 CONNECTIONS serving|draining HOST PORT} (refreshed when it changes, at most
 * every 2 s), and watches the others', so that a draining or loaded PDP can send a PEP to the
 * least-loaded other member (RFC 2748's PDP-Redirect). A member that dies drops out when its lease
 * ends.
 */
public final class FleetMembers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FleetMembers.class);
  public static final String ROOT = "/members";

  /** What a member said of itself. */
  public record Load(int connections, boolean draining, InetSocketAddress address) {}

  private final StateStore store;
  private final String self;
  private final InetSocketAddress address;
  private final Map<String, Load> members = new ConcurrentHashMap<>();
  private final StateStore.Subscription watch;
  private String published;

  /**
   * Where each member's operators reach its control interface ({@code v1 HOST PORT}, leased), apart
   * from the load entries so that a member that has none, or an older one, reads {@link #ROOT} as
   * before: docs/operate.md, "On a fleet".
   */
  public static final String CONTROL_ROOT = "/control-endpoints";

  private final Map<String, InetSocketAddress> controls = new ConcurrentHashMap<>();
  private final StateStore.Subscription controlWatch;
  private volatile InetSocketAddress control;

  public FleetMembers(StateStore store, InetSocketAddress address) throws StoreException {
    this.store = store;
    this.address = address;
    this.self = StorePaths.segment(address.getAddress().getHostAddress() + "_" + address.getPort());
    this.watch = store.watch(ROOT, this::changed);
    this.controlWatch = store.watch(CONTROL_ROOT, this::controlChanged);
  }

  private void controlChanged(StoreEvent e) {
    if (e.kind() == StoreEvent.Kind.READY) {
      return;
    }
    String name = e.path().substring(CONTROL_ROOT.length() + 1);
    if (e.kind() == StoreEvent.Kind.REMOVED) {
      controls.remove(name);
      return;
    }
    String[] f = new String(e.value().data(), StandardCharsets.US_ASCII).split(" ");
    if (f.length == 3
        && f[0].equals("v1")
        && f[1].matches("[0-9a-fA-F:.]+")
        && f[2].matches("[0-9]{1,5}")) {
      try {
        controls.put(
            name, new InetSocketAddress(InetAddress.getByName(f[1]), Integer.parseInt(f[2])));
      } catch (UnknownHostException | IllegalArgumentException x) {
        log.debug("member {}: unreadable control endpoint", name);
      }
    }
  }

  /** Says where this member's control interface is (once it serves one). */
  public void publishControl(InetSocketAddress at) {
    control = at;
    writeControl();
  }

  private void writeControl() {
    InetSocketAddress c = control;
    if (c == null) {
      return;
    }
    byte[] v =
        ("v1 " + c.getAddress().getHostAddress() + " " + c.getPort())
            .getBytes(StandardCharsets.US_ASCII);
    try {
      store.putLeased(CONTROL_ROOT + "/" + self, v);
    } catch (StoreException e) {
      log.warn("fleet: this member's control endpoint not published: {}", e.getMessage());
    }
  }

  /** Each member's control endpoint, by member id, as the members published them. */
  public Map<String, InetSocketAddress> controls() {
    return Map.copyOf(controls);
  }

  private void changed(StoreEvent e) {
    if (e.kind() == StoreEvent.Kind.READY) {
      return;
    }
    String name = e.path().substring(ROOT.length() + 1);
    if (e.kind() == StoreEvent.Kind.REMOVED) {
      members.remove(name);
      return;
    }
    String[] f = new String(e.value().data(), StandardCharsets.US_ASCII).split(" ");
    if (f.length == 5
        && f[0].equals("v1")
        && f[1].matches("[0-9]{1,9}")
        && f[3].matches("[0-9a-fA-F:.]+")
        && f[4].matches("[0-9]{1,5}")) {
      try {
        InetSocketAddress a =
            new InetSocketAddress(InetAddress.getByName(f[3]), Integer.parseInt(f[4]));
        members.put(name, new Load(Integer.parseInt(f[1]), f[2].equals("draining"), a));
      } catch (UnknownHostException | IllegalArgumentException x) {
        log.debug("member {}: unreadable address", name);
      }
    }
  }

  /**
   * Says it all again: the store has a new session, and the entry of the lost one is gone (or
   * going).
   */
  public void republish(int connections, boolean draining) {
    published = null;
    publish(connections, draining);
    writeControl();
  }

  /** Says how loaded this member is, if that changed since it last said. */
  public void publish(int connections, boolean draining) {
    String v =
        "v1 "
            + connections
            + " "
            + (draining ? "draining" : "serving")
            + " "
            + address.getAddress().getHostAddress()
            + " "
            + address.getPort();
    if (v.equals(published)) {
      return;
    }
    byte[] b = v.getBytes(StandardCharsets.US_ASCII);
    String path = ROOT + "/" + self;
    try {
      // held by this member's live session: never written into an entry of its lost one
      if (store.putLeased(path, b)) {
        published = v;
      }
    } catch (StoreException e) {
      log.warn("fleet membership not refreshed: {}", e.getMessage());
    }
  }

  /**
   * The serving member other than this one with the fewest connections, or null: where a PEP is
   * sent when this member drains or is over its load.
   */
  public InetSocketAddress leastLoadedOther() {
    InetSocketAddress best = null;
    int least = Integer.MAX_VALUE;
    for (Map.Entry<String, Load> m : members.entrySet()) {
      Load l = m.getValue();
      if (!m.getKey().equals(self) && !l.draining() && l.connections() < least) {
        least = l.connections();
        best = l.address();
      }
    }
    return best;
  }

  /** Members seen, for status and tests. */
  public Map<String, Load> members() {
    return Map.copyOf(members);
  }

  @Override
  public void close() {
    controlWatch.close();
    watch.close();
  }
}
