package dev.portcullis.pdp.policy.mls;

import java.util.Set;

/**
 * A security label: a level (its rank in the lattice) and a set of categories. One label dominates
 * another when its rank is at least the other's and its categories include the other's; the labels
 * form a lattice under that order.
 */
public record Label(int rank, Set<String> categories) {
  public Label {
    categories = Set.copyOf(categories);
  }

  public boolean dominates(Label other) {
    return rank >= other.rank && categories.containsAll(other.categories);
  }
}
