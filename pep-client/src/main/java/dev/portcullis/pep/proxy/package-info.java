/**
 * The enforcing PEP proxy (docs/pep-proxy.md): {@link dev.portcullis.pep.proxy.PepProxy} accepts
 * each client connection, asks the PDP once, and forwards only after an Install. One job per class:
 * {@code ProxyListeners} (the listening sockets), {@code ProxySessions} (a connection's decision
 * and its relay), {@code UpstreamConnector} and {@code Relay} (the forwarded bytes), {@code
 * ProxyRevocations} (cuts on Remove, grant expiry, cached-grant connections checked when a PDP is
 * back), {@code ProxyTls}, {@code IdleCut}, {@code ProxyAudit}, {@code ProxyCounters} and {@code
 * ProxyMetrics}, and {@code ProxyConfig} (pep-proxy.xml).
 */
package dev.portcullis.pep.proxy;
