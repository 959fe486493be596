package dev.portcullis.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until a test moves it: time passes without sleeping. Thread-safe. */
public final class ManualClock extends Clock {
  private volatile long millis;

  public ManualClock(long epochSecond) {
    this.millis = epochSecond * 1000;
  }

  /** A clock standing at {@code at}. */
  public ManualClock(Instant at) {
    this.millis = at.toEpochMilli();
  }

  public void advanceSeconds(long s) {
    millis += s * 1000;
  }

  public void advance(Duration d) {
    millis += d.toMillis();
  }

  public long seconds() {
    return millis / 1000;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public ZoneOffset getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException();
  }
}
