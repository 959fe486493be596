package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

/** Accounting Timer (C-Num 15, C-Type 1): seconds between accounting reports; 0 means none. */
public record AcctTimer(int seconds) implements TimerObject {
  public AcctTimer {
    u16("ACCT Timer Value", seconds);
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.ACCT_TIMER;
  }
}
