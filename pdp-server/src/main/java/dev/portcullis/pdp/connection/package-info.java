/**
 * One PEP connection's pipeline, up to the point where requests are decided: what the handlers may
 * ask of the server ({@link dev.portcullis.pdp.connection.PdpContext}, with the limits and counters
 * it gives them), what every handler may do with the connection ({@link
 * dev.portcullis.pdp.connection.PepLink}), the request states' read-only view ({@link
 * dev.portcullis.pdp.connection.Sessions}, owned by the state machine), and the handlers before the
 * client types' own: the read rate, liveness, admission with RFC 4261's StartTLS. The server (the
 * package above) builds the pipeline; nothing here knows the server, the decisions, tunnels or
 * enrolment. Not an API: public so that the packages of one PDP can meet, and may change.
 */
package dev.portcullis.pdp.connection;
