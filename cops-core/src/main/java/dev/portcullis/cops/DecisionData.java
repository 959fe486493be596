package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.checkContent;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Decision data (C-Num 6, or 7 for an LPDP decision; C-Types 2 to 5): stateless, replacement,
 * client-specific or named (COPS-PR) data. The contents are client-type specific; for COPS-PR,
 * {@link dev.portcullis.cops.pr.PrObjects} reads and writes them structurally.
 */
public record DecisionData(boolean lpdp, DecisionDataKind kind, Bytes data) implements CopsObject {
  public DecisionData {
    Objects.requireNonNull(kind, "kind");
    checkContent("decision data", data, 0);
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.of(lpdp ? CNum.LPDP_DECISION : CNum.DECISION, kind.cType());
  }

  @Override
  public int contentLength() {
    return data.length();
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeBytes(data.array());
  }
}
