/**
 * The PDP's side of tunnels: the tunnel policy ({@link dev.portcullis.pdp.tunnel.TunnelPolicy}) and
 * the authority that decides, keys and remembers tunnels ({@link
 * dev.portcullis.pdp.tunnel.TunnelAuthority}). docs/tunnels.md.
 */
package dev.portcullis.pdp.tunnel;
