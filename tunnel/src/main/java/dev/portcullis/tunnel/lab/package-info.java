/**
 * Two hosts on one machine for tunnel tests and benchmarks: network namespaces, a veth pair and a
 * charon in each ({@link dev.portcullis.tunnel.lab.NetworkLab}). docs/tunnels.md, "The network
 * lab".
 */
package dev.portcullis.tunnel.lab;
