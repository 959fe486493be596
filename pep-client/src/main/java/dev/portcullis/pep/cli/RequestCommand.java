package dev.portcullis.pep.cli;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.pep.PepDecision;
import dev.portcullis.support.Cli;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code pep-client request}: one access request to the PDP, its decision printed
 * (docs/pep-client.md).
 */
@Command(
    name = "request",
    mixinStandardHelpOptions = true,
    description = "Ask the PDP for one decision and print it.")
final class RequestCommand implements Callable<Integer> {
  @Mixin PdpTarget target;

  @Option(names = "--pep-id", defaultValue = "pep-cli", description = "PEPID to open with.")
  String pepId;

  @Option(
      names = "--operation",
      defaultValue = "ACCESS",
      description = "ACCESS, LOGIN, CHANGE_LEVEL or LOGOUT.")
  AccessOperation operation;

  @Option(names = "--subject", required = true, description = "Who asks.")
  String subject;

  @Option(names = "--service", description = "Service name.")
  String service;

  @Option(names = "--src", description = "Source address.")
  String src;

  @Option(names = "--dst", description = "Destination address.")
  String dst;

  @Option(names = "--dport", description = "Destination port.")
  Integer dport;

  @Option(names = "--protocol", description = "IP protocol number (6 TCP, 17 UDP).")
  Integer protocol;

  @Option(names = "--level", description = "Session level.")
  Integer level;

  @Option(names = "--requested-level", description = "Level asked for by CHANGE_LEVEL.")
  Integer requestedLevel;

  @Option(names = "--category", description = "Session category (repeatable).")
  List<String> categories = new ArrayList<>();

  @Option(names = "--mode", description = "READ, WRITE or READ_WRITE.")
  AccessMode mode;

  @Option(
      names = "--config",
      description =
          "pep.xml: PEP id, client type, PDP and security (TLS, Integrity); --pdp, --pep-id and"
              + " --client-type given on the command line win.")
  Path config;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    AccessRequest ar =
        new AccessRequest(
            operation,
            subject,
            level,
            categories,
            src == null ? null : InetAddress.getByName(src),
            null,
            dst == null ? null : InetAddress.getByName(dst),
            dport,
            protocol,
            service,
            mode,
            requestedLevel,
            null);
    int ct = target.clientType;
    List<InetSocketAddress> to = List.of(target.pdp);
    String id = pepId;
    final PepConfig cfg;
    cfg = config == null ? null : PepConfig.load(config);
    if (cfg != null) {
      var given = spec.commandLine().getParseResult();
      to = given.hasMatchedOption("--pdp") ? List.of(target.pdp) : cfg.pdps();
      id = given.hasMatchedOption("--pep-id") ? pepId : cfg.pepId();
      ct = given.hasMatchedOption("--client-type") ? target.clientType : cfg.clientType();
    }
    try (cfg;
        PepClient pep =
            PepClient.builder()
                .pdps(to)
                .pepId(id)
                .clientType(ct)
                .security(cfg == null ? null : cfg.security())
                .requestTimeout(Duration.ofSeconds(10))
                .build()) {
      pep.open().get(10, TimeUnit.SECONDS);
      PepDecision d =
          pep.request("cli-1", new Context(Context.R_INCOMING, 0), ar).get(10, TimeUnit.SECONDS);
      // Only what the decision carries: no "level=null" for a rule without levels.
      StringBuilder line = new StringBuilder(d.granted() ? "GRANTED" : "DENIED");
      field(line, "rule", d.data().ruleId());
      field(line, "reason", d.data().reason());
      field(line, "level", d.data().grantedLevel());
      Object validFor = d.data().validForSeconds();
      field(line, "valid-for", validFor == null ? null : validFor + "s");
      out.println(line);
      out.flush();
      return d.granted() ? 0 : 1;
    } catch (TimeoutException e) {
      throw Cli.notDone("no answer from the PDP at " + to + " within 10 s");
    } // a PDP not running, a refusal: the PepException's line, exit 1 (Cli's table)
  }

  private static void field(StringBuilder line, String name, Object value) {
    if (value != null) {
      line.append("  ").append(name).append('=').append(value);
    }
  }
}
