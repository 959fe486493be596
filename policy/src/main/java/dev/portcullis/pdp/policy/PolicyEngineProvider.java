package dev.portcullis.pdp.policy;

import dev.portcullis.support.ConfigException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Makes policy engines of one kind from policy files. Found with {@link java.util.ServiceLoader}
 * under {@code META-INF/services/dev.portcullis.pdp.policy.PolicyEngineProvider}; {@code pdp.xml}
 * names providers by {@link #name()}.
 */
public interface PolicyEngineProvider {

  /** The provider named {@code name} on the class path, or null. */
  static PolicyEngineProvider named(String name) {
    for (PolicyEngineProvider p :
        ServiceLoader.load(
            PolicyEngineProvider.class, PolicyEngineProvider.class.getClassLoader())) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  /** The names of the providers on the class path, sorted. */
  static List<String> names() {
    List<String> names = new ArrayList<>();
    for (PolicyEngineProvider p :
        ServiceLoader.load(
            PolicyEngineProvider.class, PolicyEngineProvider.class.getClassLoader())) {
      names.add(p.name());
    }
    Collections.sort(names);
    return names;
  }

  /** The name {@code pdp.xml} uses, e.g. {@code rules} or {@code mls}. */
  String name();

  /**
   * Loads a policy file.
   *
   * @param previous the engine being replaced on a reload (to carry state such as open sessions
   *     over), or null at start
   * @throws ConfigException naming the file, line, element and attribute at fault
   */
  PolicyEngine load(Path policyFile, PolicyEngine previous) throws ConfigException;

  /**
   * Loads a policy file for a PDP that may share state with a fleet. Engines that keep no shared
   * state need not override it.
   *
   * @param environment the fleet's store and how to use it
   */
  default PolicyEngine load(Path policyFile, PolicyEngine previous, EngineEnvironment environment)
      throws ConfigException {
    return load(policyFile, previous);
  }
}
