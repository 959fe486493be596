/** The rules engine: first-match rules from XML, with conditions on the request. */
package dev.portcullis.pdp.policy.rules;
