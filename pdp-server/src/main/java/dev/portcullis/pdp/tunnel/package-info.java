/**
 * The PDP's side of tunnels (client type 0xC0A8): the tunnel policy ({@link
 * dev.portcullis.pdp.tunnel.TunnelPolicy}), the authority that decides, keys and remembers tunnels
 * ({@link dev.portcullis.pdp.tunnel.TunnelAuthority}), the desk that runs them on a thread of its
 * own ({@link dev.portcullis.pdp.tunnel.TunnelDesk}, with its book and credential admission) and
 * the connection's handler that hands it the type's requests, reports and ends ({@link
 * dev.portcullis.pdp.tunnel.TunnelHandler}). Over {@code pdp.connection}. docs/tunnels.md.
 */
package dev.portcullis.pdp.tunnel;
