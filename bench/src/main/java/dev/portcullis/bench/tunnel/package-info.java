/** Tunnel benchmarks in the network lab (docs/tunnels.md). */
package dev.portcullis.bench.tunnel;
