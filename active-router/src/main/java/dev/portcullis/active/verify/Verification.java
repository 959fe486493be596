package dev.portcullis.active.verify;

import dev.portcullis.active.packet.Malformation;
import dev.portcullis.active.packet.PacketView;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Verifier}'s answer for one packet: the outcome, and what the router needs next: the
 * packet and its session when accepted, the future to wait on when pending, what was wrong when
 * malformed. Each verifier returns the same instance every time (no allocation per packet), so it
 * is valid until that verifier's next call.
 */
public final class Verification {
  private final PacketView packet;
  private Outcome outcome;
  private Session session;
  private Malformation malformation;
  private CompletableFuture<?> pending;

  Verification(PacketView packet) {
    this.packet = packet;
  }

  Verification set(Outcome o) {
    outcome = o;
    return this;
  }

  void reset() {
    outcome = null;
    session = null;
    malformation = null;
    pending = null;
  }

  void session(Session s) {
    session = s;
  }

  void malformation(Malformation m) {
    malformation = m;
  }

  void pending(CompletableFuture<?> f) {
    pending = f;
  }

  public Outcome outcome() {
    return outcome;
  }

  /** The packet verified (parsed as far as it would parse). */
  public PacketView packet() {
    return packet;
  }

  /** Its session, after {@link Outcome#ACCEPTED}; null otherwise. */
  public Session session() {
    return session;
  }

  /** What was wrong, after {@link Outcome#MALFORMED}; null otherwise. */
  public Malformation malformation() {
    return malformation;
  }

  /** After {@link Outcome#PENDING}: completes when the code secret arrives (or cannot). */
  public CompletableFuture<?> pending() {
    return pending;
  }

  @Override
  public String toString() {
    return outcome == Outcome.MALFORMED ? outcome + ": " + malformation : String.valueOf(outcome);
  }
}
