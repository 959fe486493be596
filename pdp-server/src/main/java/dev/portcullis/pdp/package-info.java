/**
 * The COPS PDP: {@link dev.portcullis.pdp.PdpServer} and what composes it. The server listens and
 * owns the policies ({@code PdpPolicies}, {@code ClientTypePolicy}, {@code FleetPolicies}), the
 * configuration ({@link dev.portcullis.pdp.PdpConfig}), security material, audit and counters
 * ({@link dev.portcullis.pdp.PdpStats}); {@code ServerContext} is what its connections may ask of
 * it, and {@code PdpChannelInitializer} builds each PEP connection's pipeline from the rooms below:
 * {@code pdp.connection} (the link, liveness, admission), {@code pdp.decision} (the RFC 2748 state
 * machine and its decisions), {@code pdp.enrol}, {@code pdp.tunnel} and {@code pdp.fleet}. Those
 * never depend on this package (ProductRulesTest: no package cycles, at most twelve classes here).
 * Reference: {@code docs/pdp.md}, {@code docs/architecture.md}.
 */
package dev.portcullis.pdp;
