package dev.portcullis.bench.cost;

import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepSecurity;

/**
 * One layer: how to start its PDP and configure its PEPs, or a COPS-less baseline; with {@code
 * path} (the network mode), which way across the lab its packets go (null: loopback).
 */
record Layer(
    String name,
    String description,
    String clientTypes,
    String security,
    PepSecurity full,
    PepSecurity resumed,
    int clientType,
    AccessRequest request,
    Route route,
    NetworkPaths.Route path) {

  /** How a layer's exchanges travel. */
  enum Route {
    /** COPS, PEP to PDP. */
    COPS,
    /** The raw exchanges (no COPS) straight to the responder. */
    RAW,
    /** The raw exchanges through HAProxy, which decides nothing. */
    HAPROXY,
    /** The raw exchanges through the Portcullis PEP proxy: a PDP decision per connection. */
    PEP_PROXY
  }

  static final String RAW = "raw TCP";
  static final String HAPROXY = "HAProxy (no decision)";
  static final String PEP_PROXY = "PEP proxy (a decision each)";

  /** A COPS layer. */
  Layer(
      String name,
      String description,
      String clientTypes,
      String security,
      PepSecurity full,
      PepSecurity resumed,
      int clientType,
      AccessRequest request) {
    this(
        name,
        description,
        clientTypes,
        security,
        full,
        resumed,
        clientType,
        request,
        Route.COPS,
        null);
  }

  /** A layer of raw exchanges, direct or through a proxy. */
  static Layer tcp(String name, String description, Route route) {
    return new Layer(name, description, null, null, null, null, 0, null, route, null);
  }

  /** This layer across the lab by {@code p}, named and described for it. */
  Layer across(NetworkPaths.Route p, String name, String description) {
    return new Layer(
        name, description, clientTypes, security, full, resumed, clientType, request, route, p);
  }

  boolean raw() {
    return route != Route.COPS;
  }
}
