package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * PDP Redirect Address (C-Num 13) or Last PDP Address (C-Num 14): an address and a TCP port; C-Type
 * 1 for IPv4, 2 for IPv6.
 */
public record PdpAddress(boolean last, InetAddress address, int port) implements CopsObject {
  public PdpAddress {
    Objects.requireNonNull(address, "address");
    u16("TCP Port", port);
  }

  @Override
  public ObjectType objectType() {
    return address instanceof Inet4Address
        ? last ? ObjectType.LAST_PDP_ADDRESS_IPV4 : ObjectType.PDP_REDIRECT_ADDRESS_IPV4
        : last ? ObjectType.LAST_PDP_ADDRESS_IPV6 : ObjectType.PDP_REDIRECT_ADDRESS_IPV6;
  }

  @Override
  public int contentLength() {
    return address.getAddress().length + 4;
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeBytes(address.getAddress()).writeShort(0).writeShort(port);
  }
}
