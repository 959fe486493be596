package dev.portcullis.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.pep.PepException;
import dev.portcullis.pep.PepListener;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An application that embeds a PDP with policy engines of its own: {@link AllowListEngine}
 * (synchronous) serves client type 0xC0B0, {@link DirectoryEngine} (asynchronous: it asks a
 * directory over HTTP) serves 0xC0A5 with a decision timeout of half a second. The directory here
 * is a small HTTP server in the same process, standing in for another system: alice is staff, bob a
 * guest, carol's entry takes two seconds to look up, anyone else is unknown.
 *
 * <p>Run it with {@code java -cp ... dev.portcullis.examples.EmbeddedPdp}: a PEP asks both client
 * types about several people and prints what the PDP answered.
 */
public final class EmbeddedPdp {
  static final int DIRECTORY_TYPE = AccessRequest.CLIENT_TYPE;
  static final int ALLOW_LIST_TYPE = 0xC0B0;
  private static final String GATEWAY = "printer-gateway";
  private static final PepListener NOTHING = new PepListener() {}; // decisions asked only

  private EmbeddedPdp() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> answers = run(System.out);
    System.exit(answers.equals(EXPECTED) ? 0 : 1);
  }

  /** What {@link #run} answers. */
  static final Map<String, String> EXPECTED =
      Map.of(
          "directory alice", "install (member of staff)",
          "directory bob", "remove (not a member of staff)",
          "directory carol", "error 4 (Unable to process (server gives up on query))",
          "directory zed", "remove (zed is not in the directory)",
          "directory ..", "remove (.. is not in the directory)",
          "allow-list alice", "install (listed)",
          "allow-list mallory", "remove (not on the allow list)");

  /**
   * Starts the directory and the PDP, asks, stops both.
   *
   * @return for each "engine subject", what the PDP answered
   */
  static Map<String, String> run(PrintStream out) throws Exception {
    ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    HttpServer directory = directory(later);
    String pdpXml =
        """
        <pdp>
          <listen address="127.0.0.1" port="0"/>
          <client-type code="0xC0A5" engine="directory" policy="directory.properties"
                       decision-timeout="500ms"/>
          <client-type code="0xC0B0" engine="allow-list" policy="allowed.txt"/>
        </pdp>
        """;
    Map<String, String> files =
        Map.of(
            "directory.properties",
            "directory=http://127.0.0.1:"
                + directory.getAddress().getPort()
                + "/groups\ngroup=staff\n",
            "allowed.txt",
            "# who may use the printers\nalice\n");
    Map<String, String> answers = new LinkedHashMap<>();
    try (LocalPdp pdp = LocalPdp.start(pdpXml, files);
        PepClient viaDirectory =
            EmbeddedPep.connect(pdp.address(), GATEWAY, DIRECTORY_TYPE, NOTHING);
        PepClient viaAllowList =
            EmbeddedPep.connect(pdp.address(), GATEWAY, ALLOW_LIST_TYPE, NOTHING)) {
      for (String who : new String[] {"alice", "bob", "carol", "zed", ".."}) {
        answers.put("directory " + who, ask(viaDirectory, who));
      }
      for (String who : new String[] {"alice", "mallory"}) {
        answers.put("allow-list " + who, ask(viaAllowList, who));
      }
    } finally {
      directory.stop(0);
      later.shutdownNow();
    }
    answers.forEach((k, v) -> out.printf("%-20s %s%n", k, v));
    return answers;
  }

  private static String ask(PepClient pep, String who) throws Exception {
    try {
      PepDecision d =
          pep.request(
                  who,
                  new Context(Context.R_INCOMING, 0),
                  AccessRequest.access(who, "printer", AccessMode.WRITE))
              .get(10, TimeUnit.SECONDS);
      return (d.granted() ? "install" : "remove") + " (" + d.data().reason() + ")";
    } catch (ExecutionException e) {
      if (e.getCause() instanceof PepException p) {
        return "error " + p.errorCode() + " (" + p.error().description() + ")";
      }
      throw e;
    }
  }

  /** The directory: {@code GET /groups?name=NAME} answers NAME's groups, comma-separated. */
  static HttpServer directory(ScheduledExecutorService later) throws IOException {
    Map<String, String> groups = Map.of("alice", "staff,ops", "bob", "guests", "carol", "staff");
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    http.createContext(
        "/groups",
        exchange -> {
          String query = exchange.getRequestURI().getRawQuery();
          String name =
              query == null || !query.startsWith("name=")
                  ? ""
                  : URLDecoder.decode(query.substring(5), StandardCharsets.UTF_8);
          String body = groups.get(name);
          if ("carol".equals(name)) {
            // slow: answered after the PDP's decision timeout, on another thread
            later.schedule(() -> reply(exchange, 200, body), 2, TimeUnit.SECONDS);
          } else {
            reply(exchange, body == null ? 404 : 200, body == null ? "" : body);
          }
        });
    // The directory's other resources answer too, as a real one's would: a subject (say "..")
    // must never reach them through the lookup's URL.
    http.createContext("/", exchange -> reply(exchange, 200, "staff"));
    http.start();
    return http;
  }

  private static void reply(HttpExchange exchange, int status, String body) {
    try (exchange) {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
      exchange.getResponseBody().write(b);
    } catch (IOException e) {
      // the example's PDP may be gone already: nobody is waiting for this answer
    }
  }
}
