package dev.portcullis.pdp.policy;

import dev.portcullis.state.StateStore;

/**
 * What a PDP offers the engines of one client type besides their policy file.
 *
 * @param store the fleet's state store ({@code <state>} in pdp.xml), or null: nothing shared
 * @param linearizable decide from a synchronous read of shared state ({@code
 *     consistency="linearizable"}) rather than a watch-fed local view ({@code cached})
 * @param stateChanged call when shared state changed under the installed decisions: the PDP decides
 *     them again ({@link PolicyEngine#reevaluate}) and pushes the changed ones
 */
public record EngineEnvironment(StateStore store, boolean linearizable, Runnable stateChanged) {
  /** A PDP alone: nothing shared. */
  public static final EngineEnvironment ALONE = new EngineEnvironment(null, false, () -> {});
}
