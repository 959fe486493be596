/**
 * The host firewall's hands in the kernel (issue 45; docs/host-firewall.md when the PEP that uses
 * them exists): the netfilter queue ({@link dev.portcullis.netfilter.PacketQueue}), nftables
 * ({@link dev.portcullis.netfilter.Nftables}) and conntrack ({@link
 * dev.portcullis.netfilter.Conntrack}), through JNI over Debian's libraries made for each, nothing
 * hand-written over netlink. Each works in the network namespace of the thread that calls it.
 */
package dev.portcullis.netfilter;
