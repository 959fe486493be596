/**
 * The COPS Policy Enforcement Point client. {@link dev.portcullis.pep.PepClient} is the public
 * facade: it opens a client type on a PDP, sends requests and returns their decisions as futures.
 * Behind it, one job per class: {@code PepState} (waiting and installed requests across
 * connections), {@code PepConnector} (the pipeline, connects, the first Client-Open, reconnects),
 * {@code ReconnectPolicy} (home PDP, redirects, back-off on the shared {@code Backoff}), {@code
 * TlsSessionReuse} (the TLS context and its session-reuse policy), {@code PepKeepAlive} (KA sending
 * and loss on support's {@code IdleWatch}) and {@code PepConnectionHandler} (the protocol on one
 * connection). Also the PEP's configuration, security settings and enrolment. See
 * docs/pep-client.md.
 */
package dev.portcullis.pep;
