package dev.portcullis.pdp.cli;

import dev.portcullis.audit.AuditLog;
import dev.portcullis.cops.PepId;
import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.crypto.CryptoRegistry;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.enrol.CredentialStore;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StoreException;
import dev.portcullis.support.Cli;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pdp-server issue-credential --pep ID}: issues a one-time enrolment credential into the
 * store the PDP configuration names, prints it once, and records the issue in the store's own
 * hash-chained log ({@code credentials.jsonl}).
 */
@Command(
    name = "issue-credential",
    mixinStandardHelpOptions = true,
    description = {
      "Issues a one-time enrolment credential bound to one PEP id (docs/tls.md).",
      "Prints the credential once, alone on stdout (what it is, and how to enrol with it, on"
          + " stderr), or writes it to an owner-only file (--out): hand it to the PEP's operator"
          + " over a trusted channel."
    })
final class IssueCredential implements Callable<Integer> {
  @Option(
      names = {"-c", "--config"},
      defaultValue = Cli.CONF + "/pdp.xml",
      description =
          "PDP configuration with <security><enrolment store=...> (default: ${DEFAULT-VALUE}).")
  Path config;

  @Option(names = "--pep", required = true, description = "The PEP id the credential is for.")
  String pep;

  @Option(
      names = "--valid-for",
      defaultValue = "PT24H",
      description = "How long it may be used (ISO-8601 duration, default: ${DEFAULT-VALUE}).")
  Duration validFor;

  @Option(
      names = "--out",
      description =
          "Write the credential to this new file, owner-only (it must not exist), instead of"
              + " stdout.")
  Path outFile;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    var out = spec.commandLine().getOut();
    var err = spec.commandLine().getErr();
    try {
      new PepId(pep);
    } catch (IllegalArgumentException e) {
      throw Cli.usage("--pep: " + e.getMessage());
    }
    if (validFor.isNegative() || validFor.isZero()) {
      throw Cli.usage("--valid-for: " + validFor + " (expected: a positive duration)");
    }
    if (outFile != null && Files.exists(outFile, LinkOption.NOFOLLOW_LINKS)) {
      throw Cli.usage(
          "--out " + outFile + ": exists already (a credential file is never overwritten)");
    }
    Path outDir = outFile == null ? null : outFile.toAbsolutePath().normalize().getParent();
    if (outDir != null && !Files.isDirectory(outDir)) {
      throw Cli.usage("--out " + outFile + ": no directory " + outDir); // before one is issued
    }
    PdpConfig c;
    try {
      c = PdpConfig.load(config);
    } catch (ConfigException e) {
      throw e;
    }
    if (c.security() == null || c.security().enrolment() == null) {
      throw Cli.usage(config + " configures no <security><enrolment store=...>");
    }
    Path storeDir = c.security().enrolment().store();
    // Hashed through the PDP's own crypto configuration, as the running PDP hashes.
    // In a fleet on ZooKeeper the credential goes into the fleet's store, usable once fleet-wide.
    boolean fleet = c.state() != null && c.state().zookeeper();
    try (CryptoRegistry crypto = IntegrityKeys.registry(c.crypto(), List.of());
        StateStore shared = fleet ? c.state().open() : null) {
      Digester sha256 = crypto.digester(Algorithm.SHA_256);
      CredentialStore store = CredentialStore.open(storeDir, sha256, shared);
      // The log is owned before anything is issued: a second writer fails here, having issued
      // nothing, instead of forking the log's hash chain.
      CredentialStore.Issued i;
      try (AuditLog log =
          AuditLog.open(
              store.directory().resolve("credentials.jsonl"), Duration.ofSeconds(10), sha256)) {
        i = store.issue(pep, validFor);
        log.record(
            "credential-issued",
            "credential",
            i.id(),
            "pep",
            i.pepId(),
            "notAfter",
            i.notAfter().toString(),
            "operator",
            System.getProperty("user.name"));
      }
      // stdout carries the credential alone, so that "> FILE" makes a file enrol reads as it is
      if (outFile != null) {
        boolean written;
        try {
          written =
              DurableFiles.createNew(
                  outFile, (i.token() + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
          throw Cli.notDone(
              "credential "
                  + i.id()
                  + " was issued but not written to "
                  + outFile
                  + " ("
                  + e.getMessage()
                  + "): nobody has it; issue another");
        }
        if (!written) {
          throw Cli.notDone(
              "--out "
                  + outFile
                  + ": created meanwhile by someone else; credential "
                  + i.id()
                  + " was issued and nobody has it: issue another");
        }
      } else {
        out.println(i.token());
        out.flush();
      }
      err.printf(
          "credential for PEP %s, valid until %s%s; enrol with: pep-client enrol --config PEP.xml"
              + " --credential-file %s%n",
          pep,
          i.notAfter(),
          outFile == null ? "" : ", written to " + outFile,
          outFile == null ? "FILE" : outFile);
      err.flush();
      return 0;
    } catch (ConfigException e) {
      throw e;
    } catch (StoreException e) {
      throw Cli.notDone("the fleet's state store: " + e.getMessage());
    } catch (IOException e) {
      throw Cli.usage("credential store " + storeDir + ": " + e.getMessage());
    }
  }
}
