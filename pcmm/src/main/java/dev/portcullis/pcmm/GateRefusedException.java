package dev.portcullis.pcmm;

import dev.portcullis.cops.pcmm.PcmmErrorCode;
import dev.portcullis.cops.pcmm.PcmmObject;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;

/** A gate not set, not deleted or not read: refused by policy, by the CMTS, or not answered. */
public final class GateRefusedException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Who refused, or what kept the request from an answer. */
  public enum Kind {
    /** The policy denied it. */
    POLICY,
    /** The CMTS answered with an -Err (or an answer that cannot be taken). */
    CMTS,
    /** Not sent: the CMTS is not connected, or too busy. */
    UNAVAILABLE,
    /** Sent, but no answer came (a timeout, the connection lost): the outcome is not known. */
    NO_ANSWER,
    /** The gate is not held here (deleted, or changed since). */
    NOT_HELD,
    /** A Gate-Set for the same flows got no answer: it may have made the gate already. */
    IN_DOUBT,
    /**
     * The CMTS answered, but its answer cannot be read (an -Ack: the outcome is not known, as with
     * no answer; an -Err reads as {@link #CMTS}).
     */
    UNREADABLE
  }

  private final Kind kind;
  private final transient PcmmObject.PacketCableError error;

  GateRefusedException(Kind kind, String message, PcmmObject.PacketCableError error) {
    super(message, null, false, false);
    this.kind = kind;
    this.error = error;
  }

  /** Who refused, or what kept the request from an answer. */
  public Kind kind() {
    return kind;
  }

  /** Refused by the CMTS with {@code error}. */
  static GateRefusedException byCmts(String what, String cmts, PcmmObject.PacketCableError error) {
    int code = error == null ? 0 : error.code();
    return new GateRefusedException(
        Kind.CMTS,
        what
            + ": CMTS "
            + cmts
            + " answered "
            + (error == null
                ? "an -Err without a PacketCable Error"
                : "error "
                    + code
                    + (PcmmErrorCode.isDefined(code)
                        ? " (" + PcmmErrorCode.valueOf(code).description() + ")"
                        : "")
                    + ", subcode 0x"
                    + Integer.toHexString(error.subcode())),
        error);
  }

  /**
   * An answer to {@code t}'s transaction that cannot be read, {@code e} naming the object and its
   * offset: an -Err is the CMTS's refusal, anything else leaves the outcome unknown.
   */
  static GateRefusedException unreadable(
      String cmts, PcmmObject.TransactionId t, dev.portcullis.cops.pcmm.PcmmFormatException e) {
    dev.portcullis.cops.pcmm.GateCommand c = t.gateCommand();
    String what = c == null ? "Gate Command Type " + t.command() : c.description();
    return new GateRefusedException(
        c != null && c.isError() ? Kind.CMTS : Kind.UNREADABLE,
        "CMTS "
            + cmts
            + " answered transaction #"
            + t.id()
            + " with a "
            + what
            + " that cannot be read: "
            + e.getMessage(),
        null);
  }

  /** The CMTS's PacketCable Error, or null when the refusal was not the CMTS's. */
  public PcmmObject.PacketCableError error() {
    return error;
  }

  /** The failure inside any CompletionExceptions around it. */
  static Throwable cause(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /** A failure in a few words: the cause inside a CompletionException, "connection refused". */
  static String why(Throwable e) {
    e = cause(e);
    if (e instanceof ConnectException) {
      return "connection refused";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
