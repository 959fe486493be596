/**
 * The {@code pcmm-server} command: runs the PacketCable Multimedia policy server from {@code
 * pcmm.xml}, and simulated CMTSs to try it against.
 */
package dev.portcullis.pcmm.cli;
