/**
 * The COPS PDP. {@link dev.portcullis.pdp.PdpServer} listens and owns the policies, audit and
 * counters; each PEP connection is a Netty pipeline of single-purpose handlers built by {@code
 * PdpChannelInitializer}: {@code ReadRateLimiter} (over-rate reads wait), {@code Liveness} (open
 * deadline, keep-alive echo and loss on Netty's {@code IdleStateHandler}), {@code PepAdmission}
 * (RFC 4261 negotiation with {@code StartTlsGate}, identity, Integrity, protection levels), {@code
 * EnrolmentHandler} (client type 0xC0A7) and {@code PdpStateMachine} (RFC 2748 itself). Each
 * handler keeps its own state (the PEP's identity is {@code PepAdmission}'s, the request states the
 * machine's {@code Sessions}); {@code PepLink} is what they may all do, and they reach the server
 * only through {@code PdpContext} ({@code ServerContext} in production). Also here: the security settings ({@code PdpSecurity}) and
 * what they open into ({@code PdpSecurityMaterial}), the configuration, the owned and hash-chained
 * audit log, counters and timings. Reference: {@code docs/pdp.md}.
 */
package dev.portcullis.pdp;
