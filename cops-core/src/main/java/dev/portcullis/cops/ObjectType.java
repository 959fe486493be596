package dev.portcullis.cops;

/**
 * Every object Portcullis reads and writes, as the C-Num and C-Type pair its header carries (RFC
 * 2748 section 2.2, RFC 4261 section 4.1 for Integrity-TLS): the one table of object headers. An
 * object's {@link CopsObject#cNum()} and {@link CopsObject#cType()} come from its type.
 */
public enum ObjectType {
  HANDLE(CNum.HANDLE, 1),
  CONTEXT(CNum.CONTEXT, 1),
  IN_INTERFACE_IPV4(CNum.IN_INTERFACE, 1),
  IN_INTERFACE_IPV6(CNum.IN_INTERFACE, 2),
  OUT_INTERFACE_IPV4(CNum.OUT_INTERFACE, 1),
  OUT_INTERFACE_IPV6(CNum.OUT_INTERFACE, 2),
  REASON(CNum.REASON, 1),
  DECISION_FLAGS(CNum.DECISION, 1),
  DECISION_STATELESS(CNum.DECISION, 2),
  DECISION_REPLACEMENT(CNum.DECISION, 3),
  DECISION_CLIENT_SPECIFIC(CNum.DECISION, 4),
  DECISION_NAMED(CNum.DECISION, 5),
  LPDP_DECISION_FLAGS(CNum.LPDP_DECISION, 1),
  LPDP_DECISION_STATELESS(CNum.LPDP_DECISION, 2),
  LPDP_DECISION_REPLACEMENT(CNum.LPDP_DECISION, 3),
  LPDP_DECISION_CLIENT_SPECIFIC(CNum.LPDP_DECISION, 4),
  LPDP_DECISION_NAMED(CNum.LPDP_DECISION, 5),
  ERROR(CNum.ERROR, 1),
  CLIENT_SI_SIGNALED(CNum.CLIENT_SI, 1),
  CLIENT_SI_NAMED(CNum.CLIENT_SI, 2),
  KA_TIMER(CNum.KA_TIMER, 1),
  PEP_ID(CNum.PEP_ID, 1),
  REPORT_TYPE(CNum.REPORT_TYPE, 1),
  PDP_REDIRECT_ADDRESS_IPV4(CNum.PDP_REDIRECT_ADDRESS, 1),
  PDP_REDIRECT_ADDRESS_IPV6(CNum.PDP_REDIRECT_ADDRESS, 2),
  LAST_PDP_ADDRESS_IPV4(CNum.LAST_PDP_ADDRESS, 1),
  LAST_PDP_ADDRESS_IPV6(CNum.LAST_PDP_ADDRESS, 2),
  ACCT_TIMER(CNum.ACCT_TIMER, 1),
  INTEGRITY_HMAC(CNum.INTEGRITY, 1),
  INTEGRITY_TLS(CNum.INTEGRITY, 2);

  /** By C-Num code, then C-Type; null where nothing is defined. */
  private static final ObjectType[][] BY_HEADER = table();

  private final CNum cNum;
  private final int cType;

  ObjectType(CNum cNum, int cType) {
    this.cNum = cNum;
    this.cType = cType;
  }

  public CNum cNum() {
    return cNum;
  }

  public int cType() {
    return cType;
  }

  /** The type with this C-Num and C-Type, or null if neither RFC defines it. */
  public static ObjectType of(CNum c, int cType) {
    ObjectType[] byType = BY_HEADER[c.code()];
    return cType >= 0 && cType < byType.length ? byType[cType] : null;
  }

  private static ObjectType[][] table() {
    ObjectType[][] t = new ObjectType[CNum.INTEGRITY.code() + 1][];
    for (CNum c : CNum.values()) {
      int max = 0;
      for (ObjectType o : values()) {
        if (o.cNum == c) {
          max = Math.max(max, o.cType);
        }
      }
      t[c.code()] = new ObjectType[max + 1];
    }
    for (ObjectType o : values()) {
      t[o.cNum.code()][o.cType] = o;
    }
    return t;
  }
}
