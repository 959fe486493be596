/**
 * The HTTPS plumbing of the Authorization and Code Servers: a Netty server with explicit limits,
 * JSON, certificate names.
 */
package dev.portcullis.active.net;
