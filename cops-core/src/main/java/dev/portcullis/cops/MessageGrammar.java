package dev.portcullis.cops;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;
import static dev.portcullis.cops.ErrorCode.MANDATORY_OBJECT_MISSING;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-operation grammar of RFC 2748 section 3: which objects each message carries, in which
 * order, which are mandatory, and that Integrity comes last; builds the {@link CopsMessage} from
 * the objects {@link ObjectReader} read.
 */
final class MessageGrammar {
  private MessageGrammar() {}

  /** Walks the object list in order, the way the grammar reads it. */
  static final class Cursor {
    final List<CopsObject> objs;
    final int[] offs;
    int i;
    int integrityOffset = -1;

    Cursor(ObjectReader.DecodedObjects o) {
      this.objs = o.list;
      this.offs = o.offsets;
    }

    boolean at(CNum c) {
      return i < objs.size() && objs.get(i).cNum() == c;
    }

    boolean at(CNum c, int cType) {
      return at(c) && objs.get(i).cType() == cType;
    }

    int offset() {
      return i < objs.size() ? offs[i] : -1;
    }

    CopsObject next() {
      return objs.get(i++);
    }

    /** The next object, which must be of class {@code c} (error 7 if it is not there). */
    <T extends CopsObject> T required(CNum c, Class<T> type, String what, int msgEnd)
        throws CopsCodecException {
      if (!at(c)) {
        throw CopsCodecException.at(
            MANDATORY_OBJECT_MISSING,
            0,
            i < objs.size() ? offset() : msgEnd,
            what,
            i < objs.size() ? "found " + objs.get(i).cNum().description() : "end of message",
            what + " (C-Num " + c.code() + ")");
      }
      CopsObject o = next();
      if (!type.isInstance(o)) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT, 0, offs[i - 1], what, "C-Type " + o.cType(), what);
      }
      return type.cast(o);
    }

    <T extends CopsObject> T optional(CNum c, Class<T> type) {
      if (at(c) && type.isInstance(objs.get(i))) {
        return type.cast(next());
      }
      return null;
    }

    /** The optional Integrity object, then the end of the message. */
    IntegrityObject integrityThenEnd(String expectedHere, boolean tlsAllowed)
        throws CopsCodecException {
      IntegrityObject integrity = null;
      if (at(CNum.INTEGRITY)) {
        integrityOffset = offset();
        integrity = (IntegrityObject) next();
        if (integrity instanceof IntegrityTls && !tlsAllowed) {
          throw CopsCodecException.at(
              BAD_MESSAGE_FORMAT,
              0,
              integrityOffset,
              "Integrity-TLS",
              "in this operation",
              "only in OPN and CAT (RFC 4261 section 4.1)");
        }
        expectedHere = "nothing after Integrity, which must be the last object";
      }
      if (i < objs.size()) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            offset(),
            "object",
            objs.get(i).cNum().description() + " (C-Num " + objs.get(i).cNum().code() + ")",
            expectedHere);
      }
      return integrity;
    }
  }

  static CopsMessage grammar(OpCode op, int clientType, boolean solicited, Cursor c)
      throws CopsCodecException {
    int end = -1; // offsets for "missing at end" are reported as the end of the message
    switch (op) {
      case REQ:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          Context ctx = c.required(CNum.CONTEXT, Context.class, "Context", end);
          Interface in = c.optional(CNum.IN_INTERFACE, Interface.class);
          Interface out = c.optional(CNum.OUT_INTERFACE, Interface.class);
          // The usual REQ has one ClientSI and no LPDP decision: build those lists without
          // copies (List.of of one element is what the record keeps as it is).
          List<ClientSI> si = List.of();
          if (c.at(CNum.CLIENT_SI)) {
            ClientSI first = (ClientSI) c.next();
            if (!c.at(CNum.CLIENT_SI)) {
              si = List.of(first);
            } else {
              si = new ArrayList<>();
              si.add(first);
              while (c.at(CNum.CLIENT_SI)) {
                si.add((ClientSI) c.next());
              }
            }
          }
          List<DecisionSet> lpdp = List.of();
          if (c.at(CNum.CONTEXT) || c.at(CNum.LPDP_DECISION)) {
            lpdp = new ArrayList<>();
            while (c.at(CNum.CONTEXT) || c.at(CNum.LPDP_DECISION)) {
              lpdp.add(decisionSet(c, true));
            }
          }
          IntegrityObject i =
              c.integrityThenEnd(
                  "IN-Int, OUT-Int, ClientSI, LPDP decisions or Integrity, in that order", false);
          return new Request(clientType, solicited, h, ctx, in, out, si, lpdp, i);
        }
      case DEC:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          ErrorObject err = c.optional(CNum.ERROR, ErrorObject.class);
          List<DecisionSet> ds = List.of();
          if (err == null) {
            if (c.at(CNum.CONTEXT) || c.at(CNum.DECISION)) {
              DecisionSet first = decisionSet(c, false);
              if (!c.at(CNum.CONTEXT) && !c.at(CNum.DECISION)) {
                ds = List.of(first);
              } else {
                ds = new ArrayList<>();
                ds.add(first);
                while (c.at(CNum.CONTEXT) || c.at(CNum.DECISION)) {
                  ds.add(decisionSet(c, false));
                }
              }
            }
            if (ds.isEmpty()) {
              c.required(CNum.CONTEXT, Context.class, "Decision (Context and Flags) or Error", end);
            }
          }
          IntegrityObject i =
              c.integrityThenEnd(
                  err == null ? "more decisions or Integrity" : "Integrity after an Error", false);
          return new Decision(clientType, solicited, h, ds, err, i);
        }
      case RPT:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          ReportTypeObject rt =
              c.required(CNum.REPORT_TYPE, ReportTypeObject.class, "Report-Type", end);
          ClientSI si = c.optional(CNum.CLIENT_SI, ClientSI.class);
          IntegrityObject i = c.integrityThenEnd("one ClientSI or Integrity", false);
          return new Report(clientType, solicited, h, rt, si, i);
        }
      case DRQ:
        {
          Handle h = c.required(CNum.HANDLE, Handle.class, "Client Handle", end);
          Reason r = c.required(CNum.REASON, Reason.class, "Reason", end);
          IntegrityObject i = c.integrityThenEnd("Integrity", false);
          return new DeleteRequest(clientType, solicited, h, r, i);
        }
      case SSQ:
        {
          Handle h = c.optional(CNum.HANDLE, Handle.class);
          IntegrityObject i = c.integrityThenEnd("a Client Handle or Integrity", false);
          return new SyncStateRequest(clientType, solicited, h, i);
        }
      case OPN:
        {
          PepId p = c.required(CNum.PEP_ID, PepId.class, "PEPID", end);
          ClientSI si = c.optional(CNum.CLIENT_SI, ClientSI.class);
          PdpAddress last = c.optional(CNum.LAST_PDP_ADDRESS, PdpAddress.class);
          IntegrityObject i = c.integrityThenEnd("ClientSI, LastPDPAddr or Integrity", true);
          return new ClientOpen(clientType, solicited, p, si, last, i);
        }
      case CAT:
        {
          KaTimer ka = c.required(CNum.KA_TIMER, KaTimer.class, "KA Timer", end);
          AcctTimer acct = c.optional(CNum.ACCT_TIMER, AcctTimer.class);
          IntegrityObject i = c.integrityThenEnd("ACCT Timer or Integrity", true);
          return new ClientAccept(clientType, solicited, ka, acct, i);
        }
      case CC:
        {
          ErrorObject err = c.required(CNum.ERROR, ErrorObject.class, "Error", end);
          PdpAddress redirect = c.optional(CNum.PDP_REDIRECT_ADDRESS, PdpAddress.class);
          IntegrityObject i = c.integrityThenEnd("PDPRedirAddr or Integrity", false);
          return new ClientClose(clientType, solicited, err, redirect, i);
        }
      case KA:
        {
          if (clientType != 0) {
            throw CopsCodecException.at(
                BAD_MESSAGE_FORMAT, 0, 2, "client-type", clientType, "0 in a Keep-Alive");
          }
          IntegrityObject i = c.integrityThenEnd("Integrity only", false);
          return new KeepAlive(solicited, i);
        }
      case SSC:
        {
          Handle h = c.optional(CNum.HANDLE, Handle.class);
          IntegrityObject i = c.integrityThenEnd("a Client Handle or Integrity", false);
          return new SyncStateComplete(clientType, solicited, h, i);
        }
      default:
        throw new AssertionError(op);
    }
  }

  /** One decision: [Context] Flags [data...]; the data C-Types in any order, each at most once. */
  private static DecisionSet decisionSet(Cursor c, boolean lpdp) throws CopsCodecException {
    CNum cls = lpdp ? CNum.LPDP_DECISION : CNum.DECISION;
    Context ctx = c.optional(CNum.CONTEXT, Context.class);
    if (ctx == null && !lpdp) {
      c.required(CNum.CONTEXT, Context.class, "Context of a decision", -1);
    }
    if (!c.at(cls, 1)) {
      c.required(
          cls.code() == 6 ? CNum.DECISION : CNum.LPDP_DECISION,
          DecisionFlags.class,
          (lpdp ? "LPDP " : "") + "Decision Flags after a Context",
          -1);
      // present but not C-Type 1: data before flags
      throw CopsCodecException.at(
          BAD_MESSAGE_FORMAT,
          0,
          c.offset(),
          (lpdp ? "LPDP " : "") + "Decision C-Type",
          c.objs.get(c.i).cType(),
          "1 (Flags) first in each decision");
    }
    DecisionFlags flags = (DecisionFlags) c.next();
    DecisionData[] data = new DecisionData[4];
    while (c.at(cls) && c.objs.get(c.i).cType() != 1) {
      int off = c.offset();
      DecisionData d = (DecisionData) c.next();
      int slot = d.kind().ordinal();
      if (data[slot] != null) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            off,
            "Decision " + d.kind().description(),
            "a second one",
            "at most one per decision");
      }
      data[slot] = d;
    }
    return new DecisionSet(ctx, flags, data[0], data[1], data[2], data[3]);
  }
}
