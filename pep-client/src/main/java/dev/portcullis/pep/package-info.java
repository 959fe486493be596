/**
 * The COPS Policy Enforcement Point client: {@link dev.portcullis.pep.PepClient} opens a client
 * type on a PDP, sends requests and returns their decisions as futures, keeps the installed
 * decisions, answers the PDP's keep-alive and synchronization, and reconnects and follows redirects
 * on its own. See docs/pep-client.md.
 */
package dev.portcullis.pep;
