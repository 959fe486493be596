package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u32;

import io.netty.buffer.ByteBuf;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * In-Interface (C-Num 3) or Out-Interface (C-Num 4): an address and an ifIndex; C-Type 1 for IPv4,
 * 2 for IPv6.
 *
 * @param ifIndex unsigned 32-bit interface index (MIB-II ifIndex when SNMP is used)
 */
public record Interface(boolean out, InetAddress address, long ifIndex) implements CopsObject {
  public Interface {
    Objects.requireNonNull(address, "address");
    u32("ifIndex", ifIndex);
  }

  @Override
  public ObjectType objectType() {
    return address instanceof Inet6Address
        ? out ? ObjectType.OUT_INTERFACE_IPV6 : ObjectType.IN_INTERFACE_IPV6
        : out ? ObjectType.OUT_INTERFACE_IPV4 : ObjectType.IN_INTERFACE_IPV4;
  }

  @Override
  public int contentLength() {
    return address.getAddress().length + 4;
  }

  @Override
  public void writeContent(ByteBuf buf) {
    buf.writeBytes(address.getAddress()).writeInt((int) ifIndex);
  }
}
