/** The policy engine programming interface: requests, decisions, engines and their providers. */
package dev.portcullis.pdp.policy;
