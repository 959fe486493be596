package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.ReportType;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a tunnel agent reports about one tunnel (the ClientSI of an RPT of the tunnel client type,
 * 0xC0A8; docs/cops-wire.md, "The tunnel client type"): that it is up (Report-Type Success), that
 * it could not be installed or its charon is gone (Failure), or that it ended, with its accounting
 * from charon's {@code list-sas} (Accounting). A client agent reports on its tunnel's handle, a
 * gateway agent on its standing request's; the tunnel id says which tunnel.
 *
 * @param tunnelId the tunnel
 * @param state what happened
 * @param bytesIn bytes received through the tunnel (ended tunnels, and accounting reports of live
 *     ones; else null)
 * @param bytesOut bytes sent
 * @param packetsIn packets received
 * @param packetsOut packets sent
 * @param durationSeconds how long the tunnel was up
 * @param reason why (a failure's, an end's), or null
 * @param publicKey a gateway agent's fresh one-time public key (DER SubjectPublicKeyInfo), in place
 *     of the one the reported tunnel's certificate took; or null
 */
public record TunnelReport(
    String tunnelId,
    State state,
    Long bytesIn,
    Long bytesOut,
    Long packetsIn,
    Long packetsOut,
    Long durationSeconds,
    String reason,
    Bytes publicKey,
    Map<Integer, Bytes> extensions) {

  /** Attribute types. */
  public interface Type {
    int TUNNEL_ID = 1;
    int STATE = 2;
    int BYTES_IN = 3;
    int BYTES_OUT = 4;
    int PACKETS_IN = 5;
    int PACKETS_OUT = 6;
    int DURATION = 7;
    int REASON = 8;
    int PUBLIC_KEY = 9;
  }

  /** What happened to the tunnel, and the Report-Type it travels with. */
  public enum State {
    /** Installed and its CHILD_SA up. */
    UP(1, ReportType.SUCCESS),
    /** Ended (removed, or closed by the peer), with its accounting. */
    DOWN(2, ReportType.ACCOUNTING),
    /** Not installed, or lost with its charon: no traffic passes. */
    FAILED(3, ReportType.FAILURE),
    /**
     * Still up, with its counters so far: sent every Accounting timer the PDP's Client-Accept gave
     * (RFC 2748 section 2.2.13 and 2.3, "Report-Type: Accounting").
     */
    ACCOUNTING(4, ReportType.ACCOUNTING);

    final int code;
    private final ReportType reportType;

    State(int code, ReportType reportType) {
      this.code = code;
      this.reportType = reportType;
    }

    /** The RPT's Report-Type for this state. */
    public ReportType reportType() {
      return reportType;
    }
  }

  public TunnelReport {
    Objects.requireNonNull(tunnelId, "tunnel id");
    Objects.requireNonNull(state, "state");
    extensions = Tlv.extensions(extensions);
  }

  /** This report carrying a gateway's fresh public key {@code key}. */
  public TunnelReport withPublicKey(Bytes key) {
    return new TunnelReport(
        tunnelId,
        state,
        bytesIn,
        bytesOut,
        packetsIn,
        packetsOut,
        durationSeconds,
        reason,
        key,
        extensions);
  }

  public static TunnelReport up(String tunnelId) {
    return new TunnelReport(tunnelId, State.UP, null, null, null, null, null, null, null, null);
  }

  public static TunnelReport failed(String tunnelId, String reason) {
    return new TunnelReport(
        tunnelId, State.FAILED, null, null, null, null, null, reason, null, null);
  }

  /** An ended tunnel with its counters (charon's {@code bytes-in} and so on). */
  public static TunnelReport down(
      String tunnelId,
      long bytesIn,
      long bytesOut,
      long packetsIn,
      long packetsOut,
      long durationSeconds,
      String reason) {
    return new TunnelReport(
        tunnelId,
        State.DOWN,
        bytesIn,
        bytesOut,
        packetsIn,
        packetsOut,
        durationSeconds,
        reason,
        null,
        null);
  }

  /** A tunnel still up, with its counters so far (an Accounting timer's report). */
  public static TunnelReport accounting(
      String tunnelId,
      long bytesIn,
      long bytesOut,
      long packetsIn,
      long packetsOut,
      long durationSeconds) {
    return new TunnelReport(
        tunnelId,
        State.ACCOUNTING,
        bytesIn,
        bytesOut,
        packetsIn,
        packetsOut,
        durationSeconds,
        null,
        null,
        null);
  }

  public ClientSI toClientSI() {
    return new ClientSI(false, encode());
  }

  public Bytes encode() {
    Tlv.Writer w = new Tlv.Writer();
    w.utf8(Type.TUNNEL_ID, tunnelId);
    w.u8(Type.STATE, state.code);
    if (bytesIn != null) {
      w.u64(Type.BYTES_IN, bytesIn);
    }
    if (bytesOut != null) {
      w.u64(Type.BYTES_OUT, bytesOut);
    }
    if (packetsIn != null) {
      w.u64(Type.PACKETS_IN, packetsIn);
    }
    if (packetsOut != null) {
      w.u64(Type.PACKETS_OUT, packetsOut);
    }
    if (durationSeconds != null) {
      w.u32(Type.DURATION, Math.min(durationSeconds, 0xFFFF_FFFFL));
    }
    if (reason != null) {
      w.utf8(Type.REASON, reason);
    }
    if (publicKey != null) {
      w.put(Type.PUBLIC_KEY, publicKey.toArray());
    }
    extensions.forEach((t, v) -> w.put(t, v.toArray()));
    return w.toBytes();
  }

  /** Reads a report; offsets in errors are from the start of the object's contents. */
  public static TunnelReport decode(Bytes data) throws CopsCodecException {
    var f =
        new Object() {
          String id;
          State state;
          Long bytesIn;
          Long bytesOut;
          Long packetsIn;
          Long packetsOut;
          Long duration;
          String reason;
          Bytes key;
        };
    Map<Integer, Bytes> ext = new TreeMap<>();
    Tlv.each(
        data,
        9,
        -1,
        ext,
        a -> {
          switch (a.type()) {
            case Type.TUNNEL_ID -> f.id = Tlv.utf8(a, "tunnel id");
            case Type.STATE -> {
              int s = Tlv.u8(a, "tunnel state");
              if (s < 1 || s > 4) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT,
                    0,
                    a.offset() + 4,
                    "tunnel state",
                    s,
                    "1 (up), 2 (down), 3 (failed) or 4 (accounting)");
              }
              f.state = State.values()[s - 1];
            }
            case Type.BYTES_IN -> f.bytesIn = Tlv.u64(a, "bytes in");
            case Type.BYTES_OUT -> f.bytesOut = Tlv.u64(a, "bytes out");
            case Type.PACKETS_IN -> f.packetsIn = Tlv.u64(a, "packets in");
            case Type.PACKETS_OUT -> f.packetsOut = Tlv.u64(a, "packets out");
            case Type.DURATION -> f.duration = Tlv.u32(a, "duration");
            case Type.REASON -> f.reason = Tlv.utf8(a, "reason");
            default -> {
              if (a.length() == 0) {
                throw CopsCodecException.at(
                    BAD_MESSAGE_FORMAT, 0, a.offset() + 2, "public key length", 0, "1 and up");
              }
              f.key = a.value();
            }
          }
        });
    TunnelRequest.missing(f.id, "tunnel id", Type.TUNNEL_ID);
    TunnelRequest.missing(f.state, "tunnel state", Type.STATE);
    return new TunnelReport(
        f.id,
        f.state,
        f.bytesIn,
        f.bytesOut,
        f.packetsIn,
        f.packetsOut,
        f.duration,
        f.reason,
        f.key,
        ext);
  }
}
