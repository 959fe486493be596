/**
 * A connection's requests and their decisions: the RFC 2748 state machine ({@link
 * dev.portcullis.pdp.decision.PdpStateMachine}, owner of the request states), the one admission of
 * requests for every client type ({@link dev.portcullis.pdp.decision.RequestLimit}), synchronous
 * decisions and pushes ({@link dev.portcullis.pdp.decision.RequestDecisions}) and those an
 * asynchronous engine is making ({@link dev.portcullis.pdp.decision.AsyncDecisions}). Over {@code
 * pdp.connection}; not an API.
 */
package dev.portcullis.pdp.decision;
