package dev.portcullis.active.service.builtin;

import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.PacketContext;

/** Forwards every verified packet unchanged: an Active Router with nothing to add. */
public final class Forward implements ActiveService {
  @Override
  public Verdict process(PacketContext packet) {
    return Verdict.FORWARD;
  }
}
