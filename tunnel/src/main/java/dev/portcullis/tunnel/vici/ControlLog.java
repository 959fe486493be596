package dev.portcullis.tunnel.vici;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Charon's {@code control-log} for the initiates that say why they failed ({@link
 * ViciClient#initiateExplained}): what charon logs for a connection while an attempt runs, kept by
 * connection name (at most 256 lines an attempt), and the lines of it that say why. The client
 * registers for the event once, on first use, and stays registered: two round trips per initiate
 * saved (measured: a PDP-driven set-up spent ~6 ms of its ~19 in registering and unregistering on a
 * loaded 2-core machine). Used on the client's event loop only, like the rest of the client's
 * state: the client feeds it the events and watches connections from its own tasks.
 */
final class ControlLog {
  static final String EVENT = "control-log";

  // the client's loop's, like everything of the client
  private final Map<String, List<String>> byIke = new HashMap<>();

  /** One {@link #EVENT} message: kept if an attempt of its connection is watched. */
  void logged(ViciMessage m) {
    List<String> l = byIke.get(String.valueOf(m.text("ikesa-name")));
    String msg = m.text("msg");
    if (l != null && msg != null && l.size() < 256) {
      l.add(msg);
    }
  }

  /**
   * Collects what charon logs for connection {@code ike} into the list returned, until unwatched.
   */
  List<String> watch(String ike) {
    List<String> logged = new ArrayList<>();
    byIke.put(ike, logged);
    return logged;
  }

  /** Stops collecting into {@code logged} for {@code ike} (a later attempt's list stays). */
  void unwatch(String ike, List<String> logged) {
    byIke.remove(ike, logged);
  }

  /** What in charon's log of a failed attempt says why: up to 3 lines, the generic one left out. */
  static String explanation(List<String> logged) {
    LinkedHashSet<String> why = new LinkedHashSet<>();
    for (String line : logged) {
      String l = line.toLowerCase(Locale.ROOT);
      boolean telling =
          l.contains("error")
              || l.contains("authentication")
              || l.contains("no proposal")
              || l.contains("giving up")
              || l.contains("not found")
              || l.contains("unacceptable")
              || l.contains("no matching")
              || l.contains("no trusted") // a peer's certificate from no authority we trust
              || l.contains("constraint check failed"); // or for another identity
      // "authentication of 'me' (myself) ... successful" says nothing of why it failed
      if (telling && !l.startsWith("establishing child_sa") && !l.contains("successful")) {
        why.add(line.strip());
      }
    }
    return String.join("; ", why.stream().limit(3).toList());
  }
}
