/**
 * The active packet format, version 1, byte by byte ({@code docs/active-packets.md}): an in-place
 * view, the sealer, flows, MAC algorithms and what can be malformed.
 */
package dev.portcullis.active.packet;
