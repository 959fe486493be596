package com.example.policyapp;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import dev.portcullis.pep.PepClient;
import dev.portcullis.pep.PepDecision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Starts a PDP from a configuration in {@code dir}, asks it one question as a PEP, stops it. */
public final class PolicyApp {
  private PolicyApp() {}

  /** Whether {@code subject} may use {@code service}, by the rules written to {@code dir}. */
  public static boolean mayUse(Path dir, String subject, String service) throws Exception {
    Files.writeString(
        dir.resolve("rules.xml"),
        "<rules><rule id=\"staff\" decision=\"install\">"
            + "<match operation=\"ACCESS\" subject=\"alice\" service=\"wiki\"/></rule>"
            + "<default decision=\"remove\"/></rules>");
    Path xml =
        Files.writeString(
            dir.resolve("pdp.xml"),
            "<pdp><listen address=\"127.0.0.1\" port=\"0\"/>"
                + "<client-type code=\"0xC0A5\" engine=\"rules\" policy=\"rules.xml\"/></pdp>");
    try (PdpServer pdp = PdpServer.start(PdpConfig.load(xml), 1);
        PepClient pep =
            PepClient.builder()
                .pdp(pdp.address())
                .pepId("downstream")
                .clientType(AccessRequest.CLIENT_TYPE)
                .build()) {
      pep.open().get(10, TimeUnit.SECONDS);
      PepDecision d =
          pep.request(
                  "h1",
                  new Context(Context.R_INCOMING, 0),
                  AccessRequest.access(subject, service, AccessMode.READ))
              .get(10, TimeUnit.SECONDS);
      return d.granted();
    }
  }
}
