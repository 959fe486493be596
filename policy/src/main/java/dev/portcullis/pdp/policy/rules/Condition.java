package dev.portcullis.pdp.policy.rules;

import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.policy.PolicyRequest;
import dev.portcullis.support.Glob;
import dev.portcullis.support.Prefix;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.regex.Pattern;

/** One compiled condition of a rule's {@code <match>}: cheap to evaluate, no allocation. */
interface Condition {
  boolean test(PolicyRequest r);

  /**
   * A string attribute matches one of the globs. Globs without {@code *} or {@code ?} are compared
   * as plain strings: no matcher allocated on the hot path.
   */
  static Condition globs(List<String> globs, Function<PolicyRequest, String> get) {
    Set<String> literals = new HashSet<>();
    List<Pattern> patterns = new ArrayList<>();
    for (String g : globs) {
      if (g.indexOf('*') < 0 && g.indexOf('?') < 0) {
        literals.add(g);
      } else {
        patterns.add(Glob.pattern(g));
      }
    }
    Pattern[] p = patterns.toArray(new Pattern[0]);
    return r -> {
      String v = get.apply(r);
      if (v == null) {
        return false;
      }
      if (literals.contains(v)) {
        return true;
      }
      for (Pattern g : p) {
        if (g.matcher(v).matches()) {
          return true;
        }
      }
      return false;
    };
  }

  static Condition ints(int[] values, ToIntFunction<PolicyRequest> get) {
    int[] v = values.clone();
    Arrays.sort(v);
    return r -> {
      int x = get.applyAsInt(r);
      return x >= 0 && Arrays.binarySearch(v, x) >= 0;
    };
  }

  /** Inclusive ranges {@code [lo, hi]} over a value that is -1 when absent. */
  static Condition ranges(int[][] ranges, ToIntFunction<PolicyRequest> get) {
    return r -> {
      int x = get.applyAsInt(r);
      if (x < 0) {
        return false;
      }
      for (int[] range : ranges) {
        if (x >= range[0] && x <= range[1]) {
          return true;
        }
      }
      return false;
    };
  }

  static Condition cidrs(List<Prefix> blocks, Function<AccessRequest, InetAddress> get) {
    Prefix[] b = blocks.toArray(new Prefix[0]);
    return r -> {
      InetAddress a = get.apply(r.access());
      if (a == null) {
        return false;
      }
      for (Prefix p : b) {
        if (p.contains(a)) {
          return true;
        }
      }
      return false;
    };
  }

  static Condition allCategories(Set<String> required) {
    return r -> r.access().categories().containsAll(required);
  }
}
