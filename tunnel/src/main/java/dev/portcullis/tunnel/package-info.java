/**
 * Policy at the network layer: tunnels as charon loads them ({@link
 * dev.portcullis.tunnel.TunnelConnection}) at the protection objective asked for ({@link
 * dev.portcullis.tunnel.ProtectionObjective}). docs/tunnels.md.
 */
package dev.portcullis.tunnel;
