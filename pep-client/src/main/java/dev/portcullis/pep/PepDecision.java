package dev.portcullis.pep;

import dev.portcullis.cops.access.AccessDecision;

/**
 * A PDP's decision on one request: granted (Install) or not (Remove), with the decision data it
 * sent (empty if none), and whether it was solicited by a request or pushed by the PDP.
 */
public record PepDecision(boolean granted, AccessDecision data, boolean solicited) {}
