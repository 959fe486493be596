package dev.portcullis.active.service;

import java.util.Map;

/**
 * Code Ci: what an Active Router runs on each verified packet of a flow that asked for it. A module
 * is a jar signed by the Code Server whose manifest names the implementing class in {@code
 * Active-Service-Class}; the router checks the signature, loads the jar into a class loader of its
 * own and calls {@link #process} for every packet, possibly from several threads at once.
 */
public interface ActiveService {
  /** What to do with the packet after the service has seen it. */
  enum Verdict {
    FORWARD,
    DROP
  }

  /** Called once, before the first packet, with the code's settings from the configuration. */
  default void configure(Map<String, String> settings) {}

  /** True if the service reads the payload: the router then decrypts encrypted payloads for it. */
  default boolean readsPayload() {
    return false;
  }

  Verdict process(PacketContext packet);
}
