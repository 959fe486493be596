package dev.portcullis.cops;

import static dev.portcullis.cops.ObjectFields.u16;

import io.netty.buffer.ByteBuf;

/** Report-Type (C-Num 12, C-Type 1). */
public record ReportTypeObject(int type) implements CopsObject {
  public ReportTypeObject {
    u16("Report-Type", type);
  }

  public ReportTypeObject(ReportType type) {
    this(type.code());
  }

  /** The RFC 2748 report type, or null for a code it does not define. */
  public ReportType reportType() {
    return ReportType.isDefined(type) ? ReportType.valueOf(type) : null;
  }

  @Override
  public ObjectType objectType() {
    return ObjectType.REPORT_TYPE;
  }

  @Override
  public int contentLength() {
    return 4;
  }

  @Override
  public void writeContent(ByteBuf out) {
    out.writeShort(type).writeShort(0);
  }
}
