package dev.portcullis.bench.cost;

import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepSecurity;

/** One layer: how to start its PDP and configure its PEPs, or the raw baseline. */
record Layer(
    String name,
    String description,
    String clientTypes,
    String security,
    PepSecurity full,
    PepSecurity resumed,
    int clientType,
    AccessRequest request) {
  boolean raw() {
    return clientTypes == null;
  }
}
