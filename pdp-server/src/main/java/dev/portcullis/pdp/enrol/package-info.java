/**
 * One-time enrolment credentials (client type 0xC0A7): the store (used exactly once), the enroller
 * that issues certificates, and the connection's handler that answers enrolment requests ({@link
 * dev.portcullis.pdp.enrol.EnrolmentHandler}, over {@code pdp.connection}). docs/enrolment.md.
 */
package dev.portcullis.pdp.enrol;
