package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressLineTest {
  @Test
  void aLineEveryFewSecondsWithTheTimeLeftAtThePaceSoFar() {
    StringWriter text = new StringWriter();
    AtomicLong now = new AtomicLong();
    ProgressLine p = new ProgressLine(new PrintWriter(text), "simulate", "sessions", 100, now::get);
    p.done(10);
    assertEquals("", text.toString(), "nothing in the first seconds");
    now.set(6_000_000_000L);
    p.done(30); // 40 done in 6 s: 60 left take 9 s
    assertEquals("[ 40%] simulate: 40 of 100 sessions, about 9 s left\n", text.toString());
    now.set(7_000_000_000L);
    p.done(10);
    assertEquals(1, text.toString().lines().count(), "at most one line every few seconds");
    now.set(200_000_000_000L);
    p.done(50);
    assertEquals(1, text.toString().lines().count(), "no line when the work is done");
  }
}
