/**
 * The tunnel agent (docs/tunnels.md): {@link dev.portcullis.pep.tunnel.TunnelAgent}, a PEP of the
 * tunnel client type (0xC0A8) that holds on its local strongSwan charon exactly the IPsec tunnels
 * its PDP grants, reporting each tunnel's life; {@link dev.portcullis.pep.tunnel.TunnelAgentConfig}
 * reads its configuration (a pep.xml with {@code <tunnels>}).
 */
package dev.portcullis.pep.tunnel;
