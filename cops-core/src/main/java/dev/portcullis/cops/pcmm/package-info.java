/**
 * PacketCable Multimedia (PCMM, client type 0x800A): the gate control objects a Policy Server and a
 * CMTS exchange inside COPS, after CableLabs' PacketCable Multimedia Specification,
 * PKT-SP-MM-I02-040930 (the issue that is public in full), with the objects and command types later
 * issues added where noted. {@link dev.portcullis.cops.pcmm.PcmmObjects} reads and writes the
 * object sequence, {@link dev.portcullis.cops.pcmm.GateMessage} is one gate control message, and
 * {@link dev.portcullis.cops.pcmm.PcmmCops} carries it in a COPS DEC (Policy Server to CMTS) or RPT
 * (CMTS to Policy Server). docs/cops-wire.md has every object byte by byte.
 */
package dev.portcullis.cops.pcmm;
