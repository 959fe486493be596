package dev.portcullis.examples;

import dev.portcullis.audit.AuditChain;
import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmClassifier;
import dev.portcullis.cops.pcmm.PcmmObject;
import dev.portcullis.cops.pcmm.TrafficProfile;
import dev.portcullis.pcmm.Gate;
import dev.portcullis.pcmm.GateAudit;
import dev.portcullis.pcmm.GateRequest;
import dev.portcullis.pcmm.PolicyServer;
import dev.portcullis.pcmm.SubscriberLimits;
import dev.portcullis.pcmm.cmts.CmtsSimulator;
import dev.portcullis.support.Scratch;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A PacketCable Multimedia policy server in an application: from a policy to a gate on a CMTS and
 * back. Two simulated CMTSs stand in for the operator's (a real deployment names its CMTSs'
 * addresses, port 3918); the policy allows a subscriber two gates of the voice service classes; an
 * application manager asks for an upstream voice gate, a second, a third (refused by the policy),
 * reads one back from its CMTS, and the operator revokes the subscriber, which deletes its gates on
 * both CMTSs at once. Every step is in a hash-chained audit log. Run it with {@code java -cp ...
 * dev.portcullis.examples.PcmmGates}.
 */
public final class PcmmGates {
  private PcmmGates() {}

  public static void main(String[] args) throws Exception {
    run(System.out);
  }

  /** A voice gate for {@code subscriber}: upstream, EF, SIP to the operator's proxy. */
  static GateRequest voice(Inet4Address subscriber, int port) throws Exception {
    return new GateRequest(
        new PcmmObject.Amid(1, 0x0203), // application type 1 of application manager 0x0203
        new PcmmObject.SubscriberId(subscriber),
        new PcmmObject.GateSpec(PcmmObject.GateSpec.UPSTREAM, 0xb8, 0xfc, 1, 200, 300, 0, 0),
        new TrafficProfile.ServiceClassName(TrafficProfile.AUTHORIZED, "VoIP_UP"),
        List.of(
            new PcmmClassifier.Classifier(
                17,
                0,
                0,
                subscriber,
                (Inet4Address) InetAddress.getByName("192.0.2.10"),
                0,
                port,
                64)),
        List.of());
  }

  /** Runs the example, printing each step; returns the audit's events in order. */
  static List<String> run(PrintStream out) throws Exception {
    Path dir = Files.createTempDirectory("pcmm-example");
    Path auditFile = dir.resolve("gates.jsonl");
    Inet4Address alice = (Inet4Address) InetAddress.getByName("10.0.0.1");
    SubscriberLimits policy = new SubscriberLimits(2, Set.of("VoIP_UP", "VoIP_DN"));
    try (CmtsSimulator cmtss = new CmtsSimulator(2, CmtsSimulator.Profile.DEFAULT);
        AuditLog audit = AuditLog.open(auditFile);
        PolicyServer server =
            PolicyServer.start(cmtss.addresses(), policy, PolicyServer.Settings.DEFAULTS)) {
      server.addListener(new GateAudit(audit));
      server.ready().get(30, TimeUnit.SECONDS);
      out.println("policy server: connected to " + server.cmtss());

      Gate first = server.set("cmts-1", voice(alice, 5060)).get(30, TimeUnit.SECONDS);
      out.println("set " + first);
      Gate second = server.set("cmts-2", voice(alice, 5061)).get(30, TimeUnit.SECONDS);
      out.println("set " + second);
      try {
        server.set("cmts-1", voice(alice, 5062)).get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        out.println("third gate refused: " + e.getCause().getMessage());
      }
      GateMessage info = server.info(first).get(30, TimeUnit.SECONDS);
      out.println(
          "cmts-1 says: " + info.command().description() + ", state " + info.gateState().state());

      policy.revoke(alice);
      int deleted =
          server
              .reevaluate(g -> g.request().subscriber().address().equals(alice))
              .get(30, TimeUnit.SECONDS);
      out.println(
          "subscriber " + alice.getHostAddress() + " revoked: " + deleted + " gates deleted");
      out.println("gates left on the CMTSs: " + cmtss.gates());
    }
    AuditChain.Verdict v = AuditChain.verify(auditFile);
    out.println(
        "audit "
            + auditFile
            + ": "
            + (v.intact() ? "intact, " + v.records() + " records" : v.problem()));
    List<String> events = new ArrayList<>();
    for (String line : Files.readAllLines(auditFile)) {
      events.add(line.replaceAll(".*\"event\":\"([a-z-]+)\".*", "$1"));
    }
    Scratch.delete(dir); // the log and its owner's lock file
    return events;
  }
}
