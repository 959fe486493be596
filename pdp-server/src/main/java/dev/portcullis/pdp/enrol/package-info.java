/**
 * One-time enrolment credentials: the store (used exactly once) and the enroller that issues
 * certificates.
 */
package dev.portcullis.pdp.enrol;
