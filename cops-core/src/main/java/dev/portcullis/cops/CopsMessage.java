package dev.portcullis.cops;

import dev.portcullis.cops.CopsObject.AcctTimer;
import dev.portcullis.cops.CopsObject.ClientSI;
import dev.portcullis.cops.CopsObject.Context;
import dev.portcullis.cops.CopsObject.DecisionData;
import dev.portcullis.cops.CopsObject.DecisionDataKind;
import dev.portcullis.cops.CopsObject.DecisionFlags;
import dev.portcullis.cops.CopsObject.ErrorObject;
import dev.portcullis.cops.CopsObject.Handle;
import dev.portcullis.cops.CopsObject.IntegrityObject;
import dev.portcullis.cops.CopsObject.IntegrityTls;
import dev.portcullis.cops.CopsObject.Interface;
import dev.portcullis.cops.CopsObject.KaTimer;
import dev.portcullis.cops.CopsObject.PdpAddress;
import dev.portcullis.cops.CopsObject.PepId;
import dev.portcullis.cops.CopsObject.Reason;
import dev.portcullis.cops.CopsObject.ReportTypeObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The ten COPS operations of RFC 2748 section 3, each a validated value whose components follow the
 * operation's grammar: mandatory objects are non-null, optional ones may be null, repeated ones are
 * (possibly empty) unmodifiable lists, and the Integrity object, when present, is last.
 *
 * <p>Every message carries the common header's client type (0 to 65535) and solicited flag; version
 * 1 and the length are implied.
 */
public sealed interface CopsMessage {
  /** Length of the common header. */
  int HEADER_LENGTH = 8;

  /** The only COPS version. */
  int VERSION = 1;

  /** Common header flag: the message was solicited by another COPS message. */
  int FLAG_SOLICITED = 0x1;

  OpCode opCode();

  int clientType();

  boolean solicited();

  /** The Integrity object (HMAC or RFC 4261 TLS form), or null. */
  IntegrityObject integrity();

  /** The objects in wire order, Integrity last. */
  List<CopsObject> objects();

  /** This message with its Integrity object replaced (null removes it). */
  CopsMessage withIntegrity(IntegrityObject integrity);

  /** The message length the common header states: header plus every padded object. */
  default int length() {
    int n = HEADER_LENGTH;
    for (CopsObject o : objects()) {
      n += o.paddedLength();
    }
    return n;
  }

  // ---- validation helpers ----------------------------------------------------------------------

  private static int checkClientType(int clientType) {
    if (clientType < 0 || clientType > 0xFFFF) {
      throw new IllegalArgumentException("client-type: " + clientType + " (expected: 0 to 65535)");
    }
    return clientType;
  }

  private static <T> T required(T o, String what) {
    return Objects.requireNonNull(o, what + " is mandatory");
  }

  private static void hmacOnly(IntegrityObject i, OpCode op) {
    if (i instanceof IntegrityTls) {
      throw new IllegalArgumentException(
          "Integrity-TLS in " + op + " (expected: only in OPN and CAT, RFC 4261 section 4.1)");
    }
  }

  private static void add(List<CopsObject> l, CopsObject o) {
    if (o != null) {
      l.add(o);
    }
  }

  // ---- grouped decisions -----------------------------------------------------------------------

  /**
   * One decision: a Context (mandatory in DEC, optional in an LPDP decision of a REQ), the Decision
   * Flags, and at most one object of each data C-Type. RFC 2748 only requires the flags to come
   * first; the data objects are written in C-Type order.
   */
  record DecisionSet(
      Context context,
      DecisionFlags flags,
      DecisionData stateless,
      DecisionData replacement,
      DecisionData clientSpecific,
      DecisionData named) {

    public DecisionSet {
      required(flags, "Decision Flags");
      check(stateless, DecisionDataKind.STATELESS, flags.lpdp());
      check(replacement, DecisionDataKind.REPLACEMENT, flags.lpdp());
      check(clientSpecific, DecisionDataKind.CLIENT_SPECIFIC, flags.lpdp());
      check(named, DecisionDataKind.NAMED, flags.lpdp());
    }

    /** A decision with just a context and flags. */
    public static DecisionSet of(Context context, DecisionFlags flags) {
      return new DecisionSet(context, flags, null, null, null, null);
    }

    private static void check(DecisionData d, DecisionDataKind kind, boolean lpdp) {
      if (d == null) {
        return;
      }
      if (d.kind() != kind) {
        throw new IllegalArgumentException(
            "decision data: " + d.kind() + " in the " + kind + " slot");
      }
      if (d.lpdp() != lpdp) {
        throw new IllegalArgumentException(
            "decision data: "
                + (d.lpdp() ? "LPDP" : "PDP")
                + " object in a "
                + (lpdp ? "LPDP" : "PDP")
                + " decision");
      }
    }

    /** The data object of a kind, or null. */
    public DecisionData data(DecisionDataKind kind) {
      switch (kind) {
        case STATELESS:
          return stateless;
        case REPLACEMENT:
          return replacement;
        case CLIENT_SPECIFIC:
          return clientSpecific;
        default:
          return named;
      }
    }

    void addTo(List<CopsObject> l) {
      add(l, context);
      l.add(flags);
      add(l, stateless);
      add(l, replacement);
      add(l, clientSpecific);
      add(l, named);
    }
  }

  // ---- the operations --------------------------------------------------------------------------

  /**
   * Request (REQ): {@code <Handle> <Context> [<IN-Int>] [<OUT-Int>] [<ClientSI(s)>]
   * [<LPDPDecision(s)>] [<Integrity>]}.
   */
  record Request(
      int clientType,
      boolean solicited,
      Handle handle,
      Context context,
      Interface in,
      Interface out,
      List<ClientSI> clientSIs,
      List<DecisionSet> lpdpDecisions,
      IntegrityObject integrity)
      implements CopsMessage {

    public Request {
      checkClientType(clientType);
      required(handle, "Client Handle");
      required(context, "Context");
      if (in != null && in.out()) {
        throw new IllegalArgumentException("IN-Int: an Out-Interface object");
      }
      if (out != null && !out.out()) {
        throw new IllegalArgumentException("OUT-Int: an In-Interface object");
      }
      clientSIs = List.copyOf(clientSIs == null ? List.of() : clientSIs);
      lpdpDecisions = List.copyOf(lpdpDecisions == null ? List.of() : lpdpDecisions);
      for (DecisionSet d : lpdpDecisions) {
        if (!d.flags().lpdp()) {
          throw new IllegalArgumentException("LPDP decision: a PDP Decision object (C-Num 6)");
        }
      }
      hmacOnly(integrity, OpCode.REQ);
    }

    /** A request with a handle, a context and client-specific information. */
    public static Request of(int clientType, Handle handle, Context context, ClientSI... si) {
      return new Request(clientType, false, handle, context, null, null, List.of(si), null, null);
    }

    /**
     * The data of the first ClientSI, which must be a signaled one: the client type's request.
     *
     * @param what the request expected, for the error (e.g. "the access request")
     * @throws CopsCodecException error 5 (mandatory client-specific info missing) without it
     */
    public Bytes signaledData(String what) throws CopsCodecException {
      ClientSI si = clientSIs.isEmpty() ? null : clientSIs.get(0);
      if (si == null || si.named()) {
        throw CopsCodecException.at(
            ErrorCode.MANDATORY_CLIENT_SPECIFIC_INFO_MISSING,
            0,
            0,
            "ClientSI",
            "missing",
            "a signaled ClientSI with " + what);
      }
      return si.data();
    }

    @Override
    public OpCode opCode() {
      return OpCode.REQ;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(4 + clientSIs.size() + 2 * lpdpDecisions.size());
      l.add(handle);
      l.add(context);
      add(l, in);
      add(l, out);
      l.addAll(clientSIs);
      for (DecisionSet d : lpdpDecisions) {
        d.addTo(l);
      }
      add(l, integrity);
      return l;
    }

    @Override
    public Request withIntegrity(IntegrityObject i) {
      return new Request(
          clientType, solicited, handle, context, in, out, clientSIs, lpdpDecisions, i);
    }
  }

  /** Decision (DEC): {@code <Handle> <Decision(s)> | <Error> [<Integrity>]}. */
  record Decision(
      int clientType,
      boolean solicited,
      Handle handle,
      List<DecisionSet> decisions,
      ErrorObject error,
      IntegrityObject integrity)
      implements CopsMessage {

    public Decision {
      checkClientType(clientType);
      required(handle, "Client Handle");
      decisions = List.copyOf(decisions == null ? List.of() : decisions);
      if (decisions.isEmpty() == (error == null)) {
        throw new IllegalArgumentException(
            "DEC: "
                + (error == null ? "neither decisions nor" : "both decisions and")
                + " an Error (expected: one or more decisions, or an Error)");
      }
      for (DecisionSet d : decisions) {
        if (d.flags().lpdp()) {
          throw new IllegalArgumentException("DEC decision: an LPDP Decision object (C-Num 7)");
        }
        required(d.context(), "Context of each DEC decision");
      }
      hmacOnly(integrity, OpCode.DEC);
    }

    /** A decision message with decisions. */
    public static Decision of(
        int clientType, boolean solicited, Handle handle, DecisionSet... decisions) {
      return new Decision(clientType, solicited, handle, List.of(decisions), null, null);
    }

    /** A decision message reporting a protocol error in a request. */
    public static Decision error(int clientType, Handle handle, ErrorObject error) {
      return new Decision(clientType, true, handle, null, error, null);
    }

    @Override
    public OpCode opCode() {
      return OpCode.DEC;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(3 + 3 * decisions.size());
      l.add(handle);
      for (DecisionSet d : decisions) {
        d.addTo(l);
      }
      add(l, error);
      add(l, integrity);
      return l;
    }

    @Override
    public Decision withIntegrity(IntegrityObject i) {
      return new Decision(clientType, solicited, handle, decisions, error, i);
    }
  }

  /** Report State (RPT): {@code <Handle> <Report-Type> [<ClientSI>] [<Integrity>]}. */
  record Report(
      int clientType,
      boolean solicited,
      Handle handle,
      ReportTypeObject reportType,
      ClientSI clientSI,
      IntegrityObject integrity)
      implements CopsMessage {

    public Report {
      checkClientType(clientType);
      required(handle, "Client Handle");
      required(reportType, "Report-Type");
      hmacOnly(integrity, OpCode.RPT);
    }

    @Override
    public OpCode opCode() {
      return OpCode.RPT;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(4);
      l.add(handle);
      l.add(reportType);
      add(l, clientSI);
      add(l, integrity);
      return l;
    }

    @Override
    public Report withIntegrity(IntegrityObject i) {
      return new Report(clientType, solicited, handle, reportType, clientSI, i);
    }
  }

  /** Delete Request State (DRQ): {@code <Handle> <Reason> [<Integrity>]}. */
  record DeleteRequest(
      int clientType, boolean solicited, Handle handle, Reason reason, IntegrityObject integrity)
      implements CopsMessage {

    public DeleteRequest {
      checkClientType(clientType);
      required(handle, "Client Handle");
      required(reason, "Reason");
      hmacOnly(integrity, OpCode.DRQ);
    }

    @Override
    public OpCode opCode() {
      return OpCode.DRQ;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(3);
      l.add(handle);
      l.add(reason);
      add(l, integrity);
      return l;
    }

    @Override
    public DeleteRequest withIntegrity(IntegrityObject i) {
      return new DeleteRequest(clientType, solicited, handle, reason, i);
    }
  }

  /** Synchronize State Request (SSQ): {@code [<Handle>] [<Integrity>]}. */
  record SyncStateRequest(
      int clientType, boolean solicited, Handle handle, IntegrityObject integrity)
      implements CopsMessage {

    public SyncStateRequest {
      checkClientType(clientType);
      hmacOnly(integrity, OpCode.SSQ);
    }

    @Override
    public OpCode opCode() {
      return OpCode.SSQ;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(2);
      add(l, handle);
      add(l, integrity);
      return l;
    }

    @Override
    public SyncStateRequest withIntegrity(IntegrityObject i) {
      return new SyncStateRequest(clientType, solicited, handle, i);
    }
  }

  /** Client-Open (OPN): {@code <PEPID> [<ClientSI>] [<LastPDPAddr>] [<Integrity>]}. */
  record ClientOpen(
      int clientType,
      boolean solicited,
      PepId pepId,
      ClientSI clientSI,
      PdpAddress lastPdpAddress,
      IntegrityObject integrity)
      implements CopsMessage {

    public ClientOpen {
      checkClientType(clientType);
      required(pepId, "PEPID");
      if (lastPdpAddress != null && !lastPdpAddress.last()) {
        throw new IllegalArgumentException("LastPDPAddr: a PDP Redirect Address object");
      }
    }

    public static ClientOpen of(int clientType, String pepId) {
      return new ClientOpen(clientType, false, new PepId(pepId), null, null, null);
    }

    @Override
    public OpCode opCode() {
      return OpCode.OPN;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(4);
      l.add(pepId);
      add(l, clientSI);
      add(l, lastPdpAddress);
      add(l, integrity);
      return l;
    }

    @Override
    public ClientOpen withIntegrity(IntegrityObject i) {
      return new ClientOpen(clientType, solicited, pepId, clientSI, lastPdpAddress, i);
    }
  }

  /** Client-Accept (CAT): {@code <KA Timer> [<ACCT Timer>] [<Integrity>]}. */
  record ClientAccept(
      int clientType,
      boolean solicited,
      KaTimer kaTimer,
      AcctTimer acctTimer,
      IntegrityObject integrity)
      implements CopsMessage {

    public ClientAccept {
      checkClientType(clientType);
      required(kaTimer, "KA Timer");
    }

    public static ClientAccept of(int clientType, int kaSeconds) {
      return new ClientAccept(clientType, false, new KaTimer(kaSeconds), null, null);
    }

    @Override
    public OpCode opCode() {
      return OpCode.CAT;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(3);
      l.add(kaTimer);
      add(l, acctTimer);
      add(l, integrity);
      return l;
    }

    @Override
    public ClientAccept withIntegrity(IntegrityObject i) {
      return new ClientAccept(clientType, solicited, kaTimer, acctTimer, i);
    }
  }

  /** Client-Close (CC): {@code <Error> [<PDPRedirAddr>] [<Integrity>]}. */
  record ClientClose(
      int clientType,
      boolean solicited,
      ErrorObject error,
      PdpAddress redirect,
      IntegrityObject integrity)
      implements CopsMessage {

    public ClientClose {
      checkClientType(clientType);
      required(error, "Error");
      if (redirect != null && redirect.last()) {
        throw new IllegalArgumentException("PDPRedirAddr: a Last PDP Address object");
      }
      hmacOnly(integrity, OpCode.CC);
    }

    public static ClientClose of(int clientType, ErrorCode code, int subCode) {
      return new ClientClose(clientType, false, new ErrorObject(code, subCode), null, null);
    }

    @Override
    public OpCode opCode() {
      return OpCode.CC;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(3);
      l.add(error);
      add(l, redirect);
      add(l, integrity);
      return l;
    }

    @Override
    public ClientClose withIntegrity(IntegrityObject i) {
      return new ClientClose(clientType, solicited, error, redirect, i);
    }
  }

  /** Keep-Alive (KA): {@code [<Integrity>]}; the client type is always 0. */
  record KeepAlive(boolean solicited, IntegrityObject integrity) implements CopsMessage {
    public KeepAlive {
      hmacOnly(integrity, OpCode.KA);
    }

    @Override
    public int clientType() {
      return 0;
    }

    @Override
    public OpCode opCode() {
      return OpCode.KA;
    }

    @Override
    public List<CopsObject> objects() {
      return integrity == null ? List.of() : List.of(integrity);
    }

    @Override
    public KeepAlive withIntegrity(IntegrityObject i) {
      return new KeepAlive(solicited, i);
    }
  }

  /** Synchronize State Complete (SSC): {@code [<Handle>] [<Integrity>]}. */
  record SyncStateComplete(
      int clientType, boolean solicited, Handle handle, IntegrityObject integrity)
      implements CopsMessage {

    public SyncStateComplete {
      checkClientType(clientType);
      hmacOnly(integrity, OpCode.SSC);
    }

    @Override
    public OpCode opCode() {
      return OpCode.SSC;
    }

    @Override
    public List<CopsObject> objects() {
      List<CopsObject> l = new ArrayList<>(2);
      add(l, handle);
      add(l, integrity);
      return l;
    }

    @Override
    public SyncStateComplete withIntegrity(IntegrityObject i) {
      return new SyncStateComplete(clientType, solicited, handle, i);
    }
  }
}
