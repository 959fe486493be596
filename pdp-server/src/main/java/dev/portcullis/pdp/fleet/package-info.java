/**
 * What a PDP fleet shares that needs no PDP internals: the members and their load ({@link
 * dev.portcullis.pdp.fleet.FleetMembers}) and the audit anchors ({@link
 * dev.portcullis.pdp.fleet.FleetAudit}). Joining a fleet ({@code FleetMember}) and a client type's
 * policy shared by it ({@code FleetPolicies}) compose the server, and live with it. docs/fleet.md.
 */
package dev.portcullis.pdp.fleet;
