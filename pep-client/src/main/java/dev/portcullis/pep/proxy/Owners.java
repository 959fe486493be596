package dev.portcullis.pep.proxy;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.RejectedExecutionException;

/**
 * How the proxy reaches state it does not own (docs/architecture.md, "Who owns each piece of
 * state"): by handing the work to its owner, an event loop. The proxy has two kinds of owner: each
 * client's loop owns that connection's channels and relays, and the books' loop (the PEP's) owns
 * what the proxy keeps across connections: the open connections, their request states, the grants
 * and their anchors, the MLS sessions.
 */
final class Owners {
  private Owners() {}

  /**
   * Runs {@code task} on {@code owner}: at once when called there, else queued behind what the
   * owner has to do already. False, with nothing run, when the owner is stopping (the proxy is).
   */
  static boolean run(EventExecutor owner, Runnable task) {
    if (owner.inEventLoop()) {
      task.run();
      return true;
    }
    try {
      owner.execute(task);
      return true;
    } catch (RejectedExecutionException stopping) {
      return false;
    }
  }
}
