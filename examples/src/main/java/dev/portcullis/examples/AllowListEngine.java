package dev.portcullis.examples;

import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.support.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A synchronous policy engine of one's own: grants the subjects its policy file lists, one per line
 * ({@code #} starts a comment), and removes everyone else. It decides on the PEP connection's event
 * loop, from memory, so it answers at once; the set it reads is immutable, so connections deciding
 * at the same time need no lock.
 *
 * <p>{@code pdp.xml} names it {@code engine="allow-list"}; the PDP finds its {@link Provider} with
 * {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.portcullis.pdp.policy.PolicyEngineProvider} in this jar).
 */
public final class AllowListEngine implements PolicyEngine {
  private static final PolicyDecision LISTED = PolicyDecision.grant("allow-list", "listed");
  private static final PolicyDecision NOT_LISTED =
      PolicyDecision.deny("allow-list", "not on the allow list");

  private final Set<String> allowed;

  AllowListEngine(Set<String> allowed) {
    this.allowed = Set.copyOf(allowed);
  }

  @Override
  public PolicyDecision decide(PolicyRequest request) {
    // The same instance for every grant: the PDP then encodes its decision data once.
    return allowed.contains(request.access().subject()) ? LISTED : NOT_LISTED;
  }

  @Override
  public String describe() {
    return allowed.size() + " subjects allowed";
  }

  /** Loads allow lists: {@code engine="allow-list"}. */
  public static final class Provider implements PolicyEngineProvider {
    @Override
    public String name() {
      return "allow-list";
    }

    @Override
    public PolicyEngine load(Path policyFile, PolicyEngine previous) throws ConfigException {
      List<String> lines;
      try {
        lines = Files.readAllLines(policyFile);
      } catch (IOException e) {
        throw new ConfigException(policyFile.toString(), "unreadable: " + e.getMessage(), e);
      }
      Set<String> allowed = new LinkedHashSet<>();
      for (int i = 0; i < lines.size(); i++) {
        String s = lines.get(i).replaceFirst("#.*", "").strip();
        if (s.isEmpty()) {
          continue;
        }
        if (s.chars().anyMatch(Character::isWhitespace)) {
          throw new ConfigException(
              policyFile.toString(),
              i + 1,
              -1,
              null,
              null,
              "\"" + s + "\" (expected: one subject per line)");
        }
        allowed.add(s);
      }
      return new AllowListEngine(allowed);
    }
  }
}
