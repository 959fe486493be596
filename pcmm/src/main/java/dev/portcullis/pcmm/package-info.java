/**
 * A PacketCable Multimedia policy server ({@link dev.portcullis.pcmm.PolicyServer}): it connects to
 * each CMTS (TCP 3918), accepts the CMTS's Client-Open, and sets, queries and deletes gates decided
 * by a {@link dev.portcullis.pcmm.GatePolicy}, tracking every gate through the CMTS's answers and
 * checking them again after a reconnect. {@link dev.portcullis.pcmm.cmts} is a CMTS simulator
 * written from the specification, for tests and load. The wire format is cops-core's {@code pcmm}
 * package; docs/cops-wire.md has it byte by byte.
 */
package dev.portcullis.pcmm;
