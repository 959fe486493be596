package dev.portcullis.pdp.policy;

import dev.portcullis.state.StateStore;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What a PDP offers the engines of one client type besides their policy file.
 *
 * @param store the fleet's state store ({@code <state>} in pdp.xml), or null: nothing shared
 * @param linearizable decide from a synchronous read of shared state ({@code
 *     consistency="linearizable"}) rather than a watch-fed local view ({@code cached})
 * @param stateChanged call with the installed requests that shared state changed under (a predicate
 *     over them): the PDP decides them again ({@link PolicyEngine#reevaluate}) and pushes the
 *     changed ones
 */
public record EngineEnvironment(
    StateStore store, boolean linearizable, Consumer<Predicate<PolicyRequest>> stateChanged) {
  /** A PDP alone: nothing shared. */
  public static final EngineEnvironment ALONE = new EngineEnvironment(null, false, affected -> {});
}
