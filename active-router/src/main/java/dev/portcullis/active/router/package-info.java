/**
 * The Active Router. {@link dev.portcullis.active.router.ActiveRouter} sets one up and owns its
 * lifetime; the parts each have one job: {@code PacketHandler} (the UDP handler: one packet's
 * verification, service run and forwarding, and its one count), {@code ParkedPackets} (packets
 * waiting for their code secret), {@code CodeModules} (this router's codes: secrets, announced
 * epochs and signed modules from the Code Server), {@code RouteTable} (static routes), {@code
 * ServiceContext} (what a code's service sees of a packet) and {@code Resealer} (a new MAC for a
 * replaced payload).
 */
package dev.portcullis.active.router;
