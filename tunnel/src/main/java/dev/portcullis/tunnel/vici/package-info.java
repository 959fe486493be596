/**
 * strongSwan's VICI control protocol: the wire format ({@link
 * dev.portcullis.tunnel.vici.ViciCodec}) and an asynchronous client over charon's unix socket
 * ({@link dev.portcullis.tunnel.vici.ViciClient}). docs/tunnels.md.
 */
package dev.portcullis.tunnel.vici;
