/**
 * A CMTS simulator written from the PacketCable Multimedia specification: many CMTSs on loopback
 * ports, each opening to the policy server that connects, keeping gates per subscriber, answering
 * Gate-Set, Gate-Info and Gate-Delete as a CMTS does (and with the errors a CMTS gives), and
 * counting what it did, so that tests and load runs can check that no gate was lost or set twice.
 */
package dev.portcullis.pcmm.cmts;
