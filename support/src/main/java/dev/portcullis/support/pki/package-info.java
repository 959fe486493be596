/**
 * The development PKI: a private CA and certificates for servers, PEPs, routers and users, made on
 * first use, owner-only.
 */
package dev.portcullis.support.pki;
