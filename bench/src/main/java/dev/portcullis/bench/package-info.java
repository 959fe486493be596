/**
 * The command-line harnesses that drive whole servers over loopback (PDP load, the proxy against
 * HAProxy, secure COPS, the fleet, the router's throughput, teardown, cycles per byte) and the main
 * job's demos ({@code Demo}, {@code FleetDemo}); the JMH suites are in {@code jmh}, the
 * cost-of-security report in {@code cost}, the compression model in {@code compress}, the tunnel
 * set-up benchmark in {@code tunnel}. Reference: {@code docs/benchmarks.md}.
 */
package dev.portcullis.bench;
