package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;

/**
 * Decision Flags (C-Num 6, or 7 for an LPDP decision; C-Type 1): the command (NULL, Install,
 * Remove) and flags (Trigger Error).
 */
public record DecisionFlags(boolean lpdp, int command, int flags) implements CopsObject {
  /** RFC 2748 §2.2.5's one flag: "Trigger Error (Trigger error message if set)". */
  public static final int TRIGGER_ERROR = 0x1;

  public DecisionFlags {
    u16("Command-Code", command);
    u16("Flags", flags);
  }

  public DecisionFlags(boolean lpdp, DecisionCommand command) {
    this(lpdp, command.code(), 0);
  }

  /** The RFC 2748 command, or null for a code it does not define. */
  public DecisionCommand decisionCommand() {
    return DecisionCommand.isDefined(command) ? DecisionCommand.valueOf(command) : null;
  }

  @Override
  public ObjectType objectType() {
    return lpdp ? ObjectType.LPDP_DECISION_FLAGS : ObjectType.DECISION_FLAGS;
  }

  @Override
  public int contentLength() {
    return 4;
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeShort(command).writeShort(flags);
  }
}
