package dev.portcullis.bench.cost;

/**
 * What the harness measures, after MYSEA's netperf tests (the MYSEA thesis) and the session of the
 * COPS over TLS/IPsec paper. One trial gives one value.
 */
enum Metric {
  CC("connection set-up: connect to CAT (TLS: full handshake)", "us", false),
  CC_RESUMED("connection set-up, TLS session resumed", "us", false),
  CC_IKE("connection set-up with IKE negotiated first (the paper's IPsec connect)", "us", false),
  RR("REQ/DEC round trip, one outstanding (mean of a batch)", "us", false),
  CRR("connect, one REQ/DEC, close", "us", false),
  STREAM("decisions per second, a window outstanding", "decisions/s", true),
  SESSION_CONNECT("five-message session: connection (OPN, CAT)", "us", false),
  SESSION_OPERATIONS("five-message session: operations (REQ, DEC, CC)", "us", false);

  public final String description;
  public final String unit;
  public final boolean higherIsBetter;

  Metric(String description, String unit, boolean higherIsBetter) {
    this.description = description;
    this.unit = unit;
    this.higherIsBetter = higherIsBetter;
  }
}
