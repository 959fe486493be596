package dev.portcullis.tunnel.lab;

import dev.portcullis.tunnel.ProtectionObjective;
import dev.portcullis.tunnel.TunnelConnection;
import dev.portcullis.tunnel.vici.ViciClient;
import dev.portcullis.tunnel.vici.ViciCommandException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two hosts for IPsec on one machine: two network namespaces joined by a veth pair, each with an
 * outer address on the veth ({@code 192.0.2.1} and {@code 192.0.2.2}, TEST-NET-1, which exists only
 * inside them) and an inner address on its loopback ({@code 10.1.0.1}, {@code 10.2.0.1}) for the
 * traffic a tunnel carries, and a strongSwan charon in each on request (userspace ESP through
 * {@code kernel-libipsec}: our machines' kernels have no ESP; docs/tunnels.md). Made and torn down
 * by whoever uses it; traffic never leaves the two namespaces. Needs root, {@code ip}, {@code
 * /dev/net/tun} and strongSwan: {@link #unavailable} says what is missing, in one line.
 */
public final class NetworkLab implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NetworkLab.class);
  private static final AtomicInteger LABS = new AtomicInteger();

  /** One host of the lab. */
  public static final class Side {
    private final String namespace;
    private final String link;
    private final String outer;
    private final String inner;
    private final Path dir;
    private CharonProcess charon;
    private Path vici;

    Side(String namespace, String link, String outer, String inner, Path dir) {
      this.namespace = namespace;
      this.link = link;
      this.outer = outer;
      this.inner = inner;
      this.dir = dir;
    }

    /** The network namespace's name (for {@code ip netns exec}). */
    public String namespace() {
      return namespace;
    }

    /** Its end of the veth pair. */
    public String link() {
      return link;
    }

    /** Its address on the veth: what IKE and ESP travel between. */
    public String outer() {
      return outer;
    }

    /** Its address on its loopback: what a tunnel carries traffic between. */
    public String inner() {
      return inner;
    }

    /** Its charon's VICI socket, once {@link NetworkLab#startCharon} ran. */
    public Path vici() {
      return vici;
    }
  }

  private final Side a;
  private final Side b;
  private boolean closed;

  private NetworkLab(Side a, Side b) {
    this.a = a;
    this.b = b;
  }

  /** Why the lab cannot run here, in one line, or null if it can. */
  public static String unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "not root: network namespaces and charon need root";
    }
    if (!Files.exists(Path.of("/dev/net/tun"))) {
      return "no /dev/net/tun: userspace ESP (kernel-libipsec) needs a TUN device";
    }
    if (!Files.isExecutable(Path.of("/usr/sbin/ip")) && !Files.isExecutable(Path.of("/sbin/ip"))) {
      return "no ip(8) (iproute2)";
    }
    String charon = CharonProcess.unavailable();
    return charon != null ? charon : CharonProcess.probe("unshare", "-n", "true");
  }

  /**
   * As {@link #unavailable()}, and the tools a test drives the lab with ({@code tcpdump}, {@code
   * ping}: looked for in /usr/bin and /usr/sbin).
   */
  public static String unavailable(String... tools) {
    String why = unavailable();
    if (why != null) {
      return why;
    }
    for (String t : tools) {
      if (!Files.isExecutable(Path.of("/usr/bin", t))
          && !Files.isExecutable(Path.of("/usr/sbin", t))) {
        return t + " is not installed (README, Requirements)";
      }
    }
    return null;
  }

  /** Makes the two namespaces and their veth pair; their charons' files go under {@code dir}. */
  public static NetworkLab create(Path dir) throws IOException, InterruptedException {
    String id = Long.toHexString(ProcessHandle.current().pid()) + "x" + LABS.incrementAndGet();
    Side a =
        new Side(
            "pc-" + id + "-a",
            "pc" + id + "a",
            "192.0.2.1",
            "10.1.0.1",
            Files.createDirectories(dir.resolve("a")));
    Side b =
        new Side(
            "pc-" + id + "-b",
            "pc" + id + "b",
            "192.0.2.2",
            "10.2.0.1",
            Files.createDirectories(dir.resolve("b")));
    if (a.link.length() > 15) {
      throw new IllegalStateException("interface name " + a.link + " longer than 15 bytes");
    }
    NetworkLab lab = new NetworkLab(a, b);
    try {
      run("ip", "netns", "add", a.namespace);
      run("ip", "netns", "add", b.namespace);
      run(
          "ip",
          "link",
          "add",
          a.link,
          "netns",
          a.namespace,
          "type",
          "veth",
          "peer",
          "name",
          b.link,
          "netns",
          b.namespace);
      for (Side s : List.of(a, b)) {
        lab.exec(s, "ip", "link", "set", "lo", "up");
        lab.exec(s, "ip", "addr", "add", s.inner + "/32", "dev", "lo");
        lab.exec(s, "ip", "addr", "add", s.outer + "/24", "dev", s.link);
        lab.exec(s, "ip", "link", "set", s.link, "up");
      }
    } catch (IOException | RuntimeException e) {
      lab.close();
      throw e;
    }
    log.debug("network lab {} / {} up", a.namespace, b.namespace);
    return lab;
  }

  public Side a() {
    return a;
  }

  public Side b() {
    return b;
  }

  /**
   * Starts strongSwan's charon in {@code s}'s namespace ({@link CharonProcess}: its own
   * configuration, VICI socket, log and {@code /run}); returns its VICI socket once it answers.
   */
  public Path startCharon(Side s) throws IOException, InterruptedException {
    s.charon = CharonProcess.start(s.dir, List.of("ip", "netns", "exec", s.namespace), true);
    s.vici = s.charon.socket();
    return s.vici;
  }

  /** Stops {@code s}'s charon (SIGTERM: its SAs are deleted); start it again with startCharon. */
  public void stopCharon(Side s) {
    CharonProcess c = s.charon;
    if (c != null) {
      c.close();
      s.charon = null;
    }
  }

  /** Kills {@code s}'s charon at once (SIGKILL), as a crash would. */
  public void killCharon(Side s) throws InterruptedException {
    CharonProcess c = s.charon;
    if (c != null) {
      c.kill();
      s.charon = null;
    }
  }

  /**
   * Runs a command in {@code s}'s namespace; its output, or an IOException with it if it failed.
   */
  public String exec(Side s, String... command) throws IOException, InterruptedException {
    List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", s.namespace));
    c.addAll(List.of(command));
    return run(c.toArray(new String[0]));
  }

  /**
   * A tunnel {@code name} between the sides' outer addresses, from {@code fromA} (a prefix on side
   * a) to {@code toB} (on side b), loaded at both charons ({@code atA}, {@code atB}) with a fresh
   * 256-bit PSK (zeroed once both have it) under the identities {@code NAME@a.lab} and {@code
   * NAME@b.lab}; not initiated.
   */
  public TunnelConnection loadTunnel(
      ViciClient atA,
      ViciClient atB,
      String name,
      String fromA,
      String toB,
      ProtectionObjective objective,
      Duration lifetime)
      throws ViciCommandException, IOException, TimeoutException, InterruptedException {
    TunnelConnection t =
        new TunnelConnection(
            name,
            a.outer,
            b.outer,
            name + "@a.lab",
            name + "@b.lab",
            fromA,
            toB,
            objective,
            lifetime);
    byte[] psk = new byte[32];
    RANDOM.nextBytes(psk);
    try {
      List<String> owners = List.of(t.localId(), t.remoteId());
      atA.await(atA.loadShared(name, "IKE", psk, owners));
      atB.await(atB.loadShared(name, "IKE", psk, owners));
    } finally {
      java.util.Arrays.fill(psk, (byte) 0);
    }
    atA.await(atA.loadConn(name, t.toVici()));
    atB.await(atB.loadConn(name, t.mirrored().toVici()));
    return t;
  }

  private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

  /**
   * Adds {@code addresses} (each {@code ADDRESS/LENGTH}) to {@code s}'s loopback in one {@code ip
   * -batch} run: the inner ends of many tunnels.
   */
  public void addInnerAddresses(Side s, List<String> addresses)
      throws IOException, InterruptedException {
    Path batch = Files.createTempFile(s.dir, "addresses-", ".ip");
    try {
      StringBuilder b = new StringBuilder();
      for (String a : addresses) {
        b.append("addr add ").append(a).append(" dev lo\n");
      }
      Files.writeString(batch, b.toString());
      run("ip", "-n", s.namespace, "-batch", batch.toString());
    } finally {
      Files.deleteIfExists(batch);
    }
  }

  /** Runs {@code command} in {@code s}'s namespace in the background (a capture, a server). */
  public Process spawn(Side s, Path output, String... command) throws IOException {
    List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", s.namespace));
    c.addAll(List.of(command));
    return new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(output.toFile()).start();
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + ": no end after 30 s");
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command) + ": exit " + p.exitValue() + ": " + text.strip());
    }
    return text;
  }

  /** Stops both charons and deletes both namespaces (the veth pair goes with them). */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Side s : List.of(a, b)) {
      stopCharon(s);
      try {
        run("ip", "netns", "del", s.namespace);
      } catch (IOException e) {
        log.debug("{}: {}", s.namespace, e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
