package dev.portcullis.netfilter;

import dev.portcullis.nativecrypto.NetworkNamespaces;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A lab for the host firewall, as the tunnels have theirs: a client and a server network namespace
 * joined by a veth ({@code 10.231.N.1} and {@code .2}), made and deleted by the test, root only.
 * The server's namespace tracks connections (a conntrack rule, as the firewall's own rules need).
 * Threads enter a namespace with {@link #in}. In the netfilter module's test jar, for the
 * firewall's tests too.
 */
public final class NetfilterLab implements AutoCloseable {
  public final String client;
  public final String server;
  public final String clientIp;
  public final String serverIp;
  private final String veth;

  /** Why the lab cannot run here, or null. */
  public static String unavailable() {
    if (!"root".equals(System.getProperty("user.name"))) {
      return "not root (network namespaces, the netfilter queue and nftables need it)";
    }
    if (PacketQueue.unavailable() != null) {
      return PacketQueue.unavailable();
    }
    if (NetworkNamespaces.unavailable() != null) {
      return NetworkNamespaces.unavailable();
    }
    for (String tool : List.of("ip", "iptables", "nft", "conntrack", "ss")) {
      if (!onPath(tool)) {
        return tool + " is not installed (apt-get install iproute2 iptables nftables conntrack)";
      }
    }
    return null;
  }

  /** Whether {@code test} can run here; where not, says why in one line (the lab's way). */
  public static boolean runsHere(String test) {
    String why = unavailable();
    if (why != null) {
      System.err.println(test + " skipped: " + why);
    }
    return why == null;
  }

  static boolean onPath(String tool) {
    for (String d : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      if (Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }

  /** Makes the lab; {@code net} (1 to 254) picks its /24, {@code name} its namespaces' names. */
  public NetfilterLab(String name, int net) throws Exception {
    String tag = name + (ProcessHandle.current().pid() % 100_000);
    this.client = tag + "c";
    this.server = tag + "s";
    this.veth = tag;
    this.clientIp = "10.231." + net + ".1";
    this.serverIp = "10.231." + net + ".2";
    close();
    run("ip", "netns", "add", client);
    run("ip", "netns", "add", server);
    run("ip", "link", "add", veth + "a", "type", "veth", "peer", "name", veth + "b");
    run("ip", "link", "set", veth + "a", "netns", client);
    run("ip", "link", "set", veth + "b", "netns", server);
    run("ip", "-n", client, "addr", "add", clientIp + "/24", "dev", veth + "a");
    run("ip", "-n", server, "addr", "add", serverIp + "/24", "dev", veth + "b");
    for (String[] nd : new String[][] {{client, veth + "a"}, {server, veth + "b"}}) {
      run("ip", "-n", nd[0], "link", "set", "lo", "up");
      run("ip", "-n", nd[0], "link", "set", nd[1], "up");
    }
    // a rule that uses conntrack, as the firewall's own do: a namespace tracks nothing without one
    serverIptables("-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT");
  }

  /** Gives the client's side one more address, {@code ip} (in the lab's /24). */
  public void addClientAddress(String ip) throws Exception {
    run("ip", "-n", client, "addr", "add", ip + "/24", "dev", veth + "a");
  }

  /** Runs {@code iptables RULE} in the server's namespace. */
  public void serverIptables(String rule) throws Exception {
    List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", server, "iptables"));
    c.addAll(List.of(rule.split(" ")));
    run(c.toArray(String[]::new));
  }

  /**
   * Starts a JVM of this class path running {@code main} with {@code args} in the server's
   * namespace, its output (both streams) to {@code output}; the caller ends it.
   */
  public Process serverJvm(java.nio.file.Path output, Class<?> main, String... args)
      throws IOException {
    List<String> c =
        new ArrayList<>(
            List.of(
                "ip",
                "netns",
                "exec",
                server,
                java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
    c.addAll(List.of(args));
    return new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(output.toFile()).start();
  }

  /** Runs a command, failing with its output when it fails; returns its output. */
  public static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(20, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + ": still running after 20 s");
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + ": exit " + p.exitValue() + ": " + out);
    }
    return out;
  }

  /** Runs {@code task} on a new thread that first enters the namespace {@code ns}. */
  public static <T> CompletableFuture<T> in(String ns, Callable<T> task) {
    CompletableFuture<T> f = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                enter(ns);
                f.complete(task.call());
              } catch (Throwable e) {
                f.completeExceptionally(e);
              }
            },
            "lab-" + ns);
    t.setDaemon(true);
    t.start();
    return f;
  }

  /**
   * Runs {@code task} on a daemon thread of its own: blocking work (an accept loop, a connection)
   * never waits in the common pool, which has one thread on a 2-core machine (on JDK 25 a
   * connection's handler queued there behind the accept loop never ran).
   */
  public static Thread daemon(String name, Runnable task) {
    Thread t = new Thread(task, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Moves the calling thread into the namespace {@code ns}. */
  public static void enter(String ns) throws IOException {
    NetworkNamespaces.enter(Path.of("/run/netns", ns));
  }

  @Override
  public void close() {
    for (String ns : List.of(client, server)) {
      try {
        run("ip", "netns", "del", ns); // takes its end of the veth, and so the pair, with it
      } catch (Exception e) {
        // not there
      }
    }
  }
}
