package dev.portcullis.pdp.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.portcullis.support.Cli;
import dev.portcullis.support.pki.TlsFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pdp-server ctl}: a running PDP's control interface from the command line
 * (docs/operate.md): one line per row as {@code swanctl} prints them, {@code --json} for scripts,
 * the exit codes of every Portcullis command (0 done; 1 refused or not done: not allowed, no such
 * PEP or tunnel, a policy file refused, the PDP unreachable; 2 a usage mistake).
 */
@Command(
    name = "ctl",
    description =
        "Sees and acts on a running PDP through its control interface (HTTPS, an operator's"
            + " client certificate). Defaults come from PORTCULLIS_CTL_ENDPOINT, _CERT, _KEY, _CA.",
    subcommands = {
      ControlCommands.Status.class,
      ControlCommands.Peps.class,
      ControlCommands.Sessions.class,
      ControlCommands.Tunnels.class,
      ControlCommands.Revoked.class,
      ControlCommands.Fleet.class,
      ControlCommands.Revoke.class,
      ControlCommands.Restore.class,
      ControlCommands.Close.class,
      ControlCommands.EndTunnel.class,
      ControlCommands.Reload.class,
      ControlCommands.Drain.class
    })
final class ControlCommands implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    throw Cli.commandNeeded(spec);
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where the interface is and who asks: the options every {@code ctl} command takes. */
  static final class Endpoint {
    @Option(
        names = "--endpoint",
        defaultValue = "${env:PORTCULLIS_CTL_ENDPOINT:-https://127.0.0.1:9464}",
        description = "The PDP's operator endpoint (default: ${DEFAULT-VALUE}).")
    String endpoint;

    @Option(
        names = "--cert",
        defaultValue = "${env:PORTCULLIS_CTL_CERT}",
        description = "The operator's client certificate (PEM, its chain after it).")
    Path cert;

    @Option(
        names = "--key",
        defaultValue = "${env:PORTCULLIS_CTL_KEY}",
        description = "The certificate's private key (PEM, PKCS#8).")
    Path key;

    @Option(
        names = "--ca",
        defaultValue = "${env:PORTCULLIS_CTL_CA}",
        description = "The CA the endpoint's certificate chains to (PEM).")
    Path ca;

    @Option(names = "--json", description = "Prints the interface's JSON as it came.")
    boolean json;

    @Option(
        names = "--timeout",
        defaultValue = "30s",
        description = "How long to wait for the answer (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    /** These options at another endpoint (a fleet's member). */
    Endpoint at(String url) {
      Endpoint e = new Endpoint();
      e.endpoint = url;
      e.cert = cert;
      e.key = key;
      e.ca = ca;
      e.json = json;
      e.timeout = timeout;
      return e;
    }

    /** The interface's answer to {@code method path?query}: its JSON, or the failure it names. */
    JsonNode call(String method, String path, Map<String, String> query) {
      URI base;
      try {
        base = URI.create(endpoint.endsWith("/") ? endpoint : endpoint + "/");
      } catch (IllegalArgumentException e) {
        throw Cli.usage("--endpoint " + endpoint + " (expected: e.g. https://127.0.0.1:9464)");
      }
      if (!"https".equals(base.getScheme()) || base.getHost() == null) {
        throw Cli.usage(
            "--endpoint "
                + endpoint
                + " (expected: https://HOST:PORT; the control interface is HTTPS only)");
      }
      StringBuilder q = new StringBuilder();
      query.forEach(
          (k, v) -> {
            if (v != null) {
              q.append(q.length() == 0 ? '?' : '&')
                  .append(k)
                  .append('=')
                  .append(URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20"));
            }
          });
      HttpRequest r =
          HttpRequest.newBuilder(base.resolve("control/" + path + q))
              .timeout(timeout)
              .method(method, HttpRequest.BodyPublishers.noBody())
              .build();
      HttpResponse<String> answer;
      try {
        answer = client().send(r, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw Cli.notDone("the control interface at " + endpoint + " did not answer: " + why(e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw Cli.notDone("interrupted");
      }
      String body = answer.body().strip();
      int status = answer.statusCode();
      if (status == 400) {
        throw Cli.usage(body);
      }
      if (status / 100 != 2) {
        throw Cli.notDone(body.isEmpty() ? "HTTP " + status : body);
      }
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw Cli.notDone("the control interface's answer is not JSON: " + e.getMessage());
      }
    }

    /** What went wrong, in words: the JDK's client leaves a refused connection's message null. */
    private String why(IOException e) {
      if (e instanceof java.net.ConnectException) {
        return "connection refused (is the PDP running, with its <metrics> endpoint there?)";
      }
      if (e instanceof java.net.http.HttpTimeoutException) {
        return "no answer within " + timeout.toSeconds() + " s";
      }
      if (e instanceof javax.net.ssl.SSLException) {
        return "TLS: "
            + (e.getMessage() == null ? "handshake failed" : e.getMessage())
            + " (is --ca the CA of the endpoint's certificate, and --cert an operator's?)";
      }
      return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private HttpClient client() {
      SSLContext ssl;
      try {
        // the JDK's TLS from the PEM files: Netty's builder would load its native TLS and all of
        // Bouncy Castle's provider first, half of a one-request command's time (TlsFiles)
        ssl = TlsFiles.clientContext(file("--cert", cert), file("--key", key), file("--ca", ca));
      } catch (IOException | java.security.GeneralSecurityException e) {
        throw Cli.usage("the operator's certificate, key or CA: " + Cli.message(e));
      }
      return HttpClient.newBuilder().sslContext(ssl).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static Path file(String option, Path p) {
      if (p == null) {
        throw Cli.usage(
            option
                + " is needed (or PORTCULLIS_CTL_"
                + option.substring(2).toUpperCase(java.util.Locale.ROOT)
                + ")");
      }
      if (!Files.isRegularFile(p)) {
        throw Cli.usage(option + " " + p + ": no such file");
      }
      return p;
    }
  }

  /** A {@code ctl} command: asks, then prints the JSON or its lines. */
  abstract static class Asking implements Callable<Integer> {
    @Mixin Endpoint endpoint;

    @Spec picocli.CommandLine.Model.CommandSpec spec;

    private final String method;
    private final String path;

    /** A view ({@code GET}) or an action ({@code POST}) of {@code /control/PATH}. */
    Asking(String method, String path) {
      this.method = method;
      this.path = path;
    }

    /** The query's parameters (a null value is left out). */
    Map<String, String> query() {
      return Map.of();
    }

    abstract List<String> lines(JsonNode answer);

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      if (this instanceof Viewing v && v.fleet) {
        return everyMember(out);
      }
      JsonNode answer = endpoint.call(method, path, query());
      if (endpoint.json) {
        out.println(answer.toString());
      } else {
        lines(answer).forEach(out::println);
      }
      out.flush();
      return Cli.OK;
    }

    /**
     * The view asked of every member of the fleet the endpoint's PDP belongs to, at the control
     * endpoint each published: each line prefixed with its member; {@code --json}, one object by
     * member. A member that does not answer is a line saying why, and exit 1 once all were asked.
     */
    private int everyMember(PrintWriter out) {
      JsonNode members = endpoint.call("GET", "fleet", Map.of()).get("members");
      if (members.isEmpty()) {
        throw Cli.notDone(endpoint.endpoint + " is a PDP alone: ask it without --fleet");
      }
      com.fasterxml.jackson.databind.node.ObjectNode all = JSON.createObjectNode();
      List<String> failed = new ArrayList<>();
      for (JsonNode m : members) {
        String member = text(m, "member");
        String control = text(m, "control");
        if (control.equals("-")) {
          failed.add(member + ": published no control endpoint");
          continue;
        }
        try {
          JsonNode answer = endpoint.at("https://" + control).call(method, path, query());
          all.set(member, answer);
          if (!endpoint.json) {
            lines(answer).forEach(l -> out.println(member + " " + l));
          }
        } catch (RuntimeException e) {
          failed.add(member + ": " + Cli.message(e));
        }
      }
      if (endpoint.json) {
        out.println(all.toString());
      }
      out.flush();
      if (!failed.isEmpty()) {
        throw Cli.notDone(String.join("; ", failed));
      }
      return Cli.OK;
    }
  }

  /** A view: asked of one PDP, or with {@code --fleet} of every member of its fleet. */
  abstract static class Viewing extends Asking {
    @Option(
        names = "--fleet",
        description =
            "Asks every member of the endpoint's fleet, at the control endpoint each published;"
                + " each line starts with its member.")
    boolean fleet;

    Viewing(String path) {
      super("GET", path);
    }
  }

  static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? "-" : v.asText();
  }

  static List<String> each(JsonNode array, java.util.function.Function<JsonNode, String> line) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(line.apply(n)));
    return out;
  }

  static Map<String, String> params(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Command(name = "status", description = "The PDP's figures: serving, connections, decisions.")
  static final class Status extends Viewing {
    Status() {
      super("status");
    }

    @Override
    List<String> lines(JsonNode s) {
      return List.of(
          String.format(
              "pdp %s %s connections=%s decisions=%s pushed=%s sessions=%s revoked=%s fleet=%s",
              text(s, "address"),
              s.path("serving").asBoolean()
                  ? "serving"
                  : "not-serving(" + text(s, "notServing") + ")",
              text(s, "connections"),
              text(s, "decisions"),
              text(s, "pushed"),
              text(s, "sessions"),
              text(s, "revoked"),
              text(s, "fleetMembers")));
    }
  }

  @Command(
      name = "peps",
      description =
          "The PEPs connected: one line each; with --decisions (or --subject) each decision they"
              + " hold, indented below.")
  static final class Peps extends Viewing {
    Peps() {
      super("peps");
    }

    @Option(names = "--pep", description = "Only this PEP.")
    String pep;

    @Option(names = "--subject", description = "Only the decisions of this subject.")
    String subject;

    @Option(names = "--decisions", description = "With the decisions each PEP holds.")
    boolean decisions;

    @Override
    Map<String, String> query() {
      return params("pep", pep, "subject", subject, "decisions", decisions ? "true" : null);
    }

    @Override
    List<String> lines(JsonNode a) {
      List<String> out = new ArrayList<>();
      for (JsonNode p : a.get("peps")) {
        out.add(
            String.format(
                "%s %s types=%s handles=%s tls=%s since=%s",
                text(p, "pep"),
                text(p, "address"),
                String.join(",", each(p.get("clientTypes"), JsonNode::asText)),
                text(p, "handles"),
                text(p, "tlsIdentity").replace(' ', '_'),
                text(p, "since")));
        for (JsonNode d : p.path("decisions")) {
          out.add(
              String.format(
                  "  %s %s %s %s %s rule=%s",
                  text(d, "clientType"),
                  text(d, "handle"),
                  text(d, "subject"),
                  text(d, "operation"),
                  text(d, "decision"),
                  text(d, "rule")));
        }
      }
      return out;
    }
  }

  @Command(name = "sessions", description = "The multilevel-security sessions open.")
  static final class Sessions extends Viewing {
    Sessions() {
      super("sessions");
    }

    @Override
    List<String> lines(JsonNode a) {
      return each(
          a.get("sessions"),
          s ->
              String.format(
                  "%s pep=%s level=%s categories=%s",
                  text(s, "subject"),
                  text(s, "pep"),
                  text(s, "level"),
                  String.join(",", each(s.get("categories"), JsonNode::asText))));
    }
  }

  @Command(name = "tunnels", description = "The tunnels granted, with where each end stands.")
  static final class Tunnels extends Viewing {
    Tunnels() {
      super("tunnels");
    }

    @Override
    List<String> lines(JsonNode a) {
      return each(
          a.get("tunnels"),
          t ->
              String.format(
                  "%s %s -> %s %s client=%s gateway=%s since=%s until=%s client-bytes=%s/%s"
                      + " gateway-bytes=%s/%s",
                  text(t, "id"),
                  text(t, "subject"),
                  text(t, "gateway"),
                  text(t, "objective"),
                  text(t, "client"),
                  text(t, "gatewayEnd"),
                  text(t, "since"),
                  text(t, "until"),
                  text(t, "clientBytesIn"),
                  text(t, "clientBytesOut"),
                  text(t, "gatewayBytesIn"),
                  text(t, "gatewayBytesOut")));
    }
  }

  @Command(name = "revoked", description = "The subjects revoked: by whom, since when, why.")
  static final class Revoked extends Viewing {
    Revoked() {
      super("revoked");
    }

    @Override
    List<String> lines(JsonNode a) {
      return each(
          a.get("revoked"),
          r ->
              String.format(
                  "%s by=%s at=%s reason=%s",
                  text(r, "subject"), text(r, "by"), text(r, "at"), text(r, "reason")));
    }
  }

  @Command(name = "fleet", description = "The fleet's members and what each said of itself.")
  static final class Fleet extends Asking {
    Fleet() {
      super("GET", "fleet");
    }

    @Override
    List<String> lines(JsonNode a) {
      return each(
          a.get("members"),
          m ->
              String.format(
                  "%s %s connections=%s draining=%s control=%s",
                  text(m, "member"),
                  text(m, "address"),
                  text(m, "connections"),
                  m.path("draining").asBoolean() ? "yes" : "no",
                  text(m, "control")));
    }
  }

  @Command(
      name = "revoke",
      description =
          "Revokes a subject now: its decisions removed at every PEP, its tunnels torn down, its"
              + " requests refused until restored.")
  static final class Revoke extends Asking {
    Revoke() {
      super("POST", "revoke");
    }

    @Parameters(index = "0", paramLabel = "SUBJECT")
    String subject;

    @Option(names = "--reason", description = "Why, as the PEPs and the audit will read it.")
    String reason;

    @Override
    Map<String, String> query() {
      return params("subject", subject, "reason", reason);
    }

    @Override
    List<String> lines(JsonNode a) {
      return List.of(
          a.path("revoked").asBoolean()
              ? subject + " revoked"
              : subject + " not revoked again: " + text(a, "detail"));
    }
  }

  @Command(name = "restore", description = "Ends a subject's revocation.")
  static final class Restore extends Asking {
    Restore() {
      super("POST", "restore");
    }

    @Parameters(index = "0", paramLabel = "SUBJECT")
    String subject;

    @Override
    Map<String, String> query() {
      return params("subject", subject);
    }

    @Override
    List<String> lines(JsonNode a) {
      return List.of(
          a.path("restored").asBoolean()
              ? subject + " restored"
              : subject + " not restored: " + text(a, "detail"));
    }
  }

  @Command(name = "close", description = "Closes a PEP's connection (Client-Close, Unspecified).")
  static final class Close extends Asking {
    Close() {
      super("POST", "close");
    }

    @Parameters(index = "0", paramLabel = "PEP")
    String pep;

    @Override
    Map<String, String> query() {
      return params("pep", pep);
    }

    @Override
    List<String> lines(JsonNode a) {
      return List.of(pep + " closed (" + text(a, "closed") + " connections)");
    }
  }

  @Command(name = "end-tunnel", description = "Ends one tunnel at both ends.")
  static final class EndTunnel extends Asking {
    EndTunnel() {
      super("POST", "end-tunnel");
    }

    @Parameters(index = "0", paramLabel = "TUNNEL")
    String id;

    @Option(names = "--reason", description = "Why, as the agents and the audit will read it.")
    String reason;

    @Override
    Map<String, String> query() {
      return params("id", id, "reason", reason);
    }

    @Override
    List<String> lines(JsonNode a) {
      return List.of(id + " ended");
    }
  }

  @Command(name = "reload", description = "Reads every policy again; a refused file is named.")
  static final class Reload extends Asking {
    Reload() {
      super("POST", "reload");
    }

    @Override
    List<String> lines(JsonNode a) {
      return each(a.get("reloaded"), JsonNode::asText);
    }
  }

  @Command(
      name = "drain",
      description =
          "Drains the PDP: not ready, no new connection, its PEPs sent to the fleet's others.")
  static final class Drain extends Asking {
    Drain() {
      super("POST", "drain");
    }

    @Override
    List<String> lines(JsonNode a) {
      return List.of(a.has("detail") ? "draining already" : "draining");
    }
  }
}
