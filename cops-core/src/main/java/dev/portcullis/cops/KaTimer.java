package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

/** Keep-Alive Timer (C-Num 10, C-Type 1): seconds; 0 means no keep-alive. */
public record KaTimer(int seconds) implements TimerObject {
  public KaTimer {
    u16("KA Timer Value", seconds);
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.KA_TIMER;
  }
}
