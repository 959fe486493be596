package dev.portcullis.pdp;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.ClientOpen;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsMessage;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.KeepAlive;
import dev.portcullis.cops.Reason;
import dev.portcullis.cops.Report;
import dev.portcullis.cops.ReportType;
import dev.portcullis.cops.ReportTypeObject;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.SyncStateComplete;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.util.List;

/**
 * A PEP session written out message by message, and the PDP's answers as hex, one line per message:
 * what "byte-identical traffic" is checked against.
 */
final class WireScript {
  /** The rules policy the script is decided by. */
  static final String POLICY =
      "<rules>"
          + "<rule id=\"ops-ssh\" decision=\"install\" reason=\"operators may reach the"
          + " management network\"><match operation=\"ACCESS\" subject=\"alice bob\""
          + " service=\"ssh\" destination=\"10.0.0.0/8\" destination-port=\"22\""
          + " protocol=\"tcp\"/><grant valid-for=\"PT1H\"/></rule>"
          + "<rule id=\"no-telnet\" decision=\"remove\" reason=\"telnet is never allowed\">"
          + "<match destination-port=\"23\"/></rule>"
          + "<default decision=\"remove\" reason=\"no rule allows this\"/>"
          + "</rules>";

  private WireScript() {}

  static AccessRequest access(String subject, int port, String service) throws Exception {
    return new AccessRequest(
        AccessOperation.ACCESS,
        subject,
        null,
        null,
        null,
        null,
        InetAddress.getByName("10.1.2.3"),
        port,
        6,
        service,
        null,
        null,
        null);
  }

  static List<CopsMessage> session() throws Exception {
    int t = AccessRequest.CLIENT_TYPE;
    Context ctx = new Context(Context.R_INCOMING, 0);
    return List.of(
        ClientOpen.of(t, "gw-1"),
        new KeepAlive(false, null),
        Request.of(t, Handle.of("h1"), ctx, access("alice", 22, "ssh").toClientSI()),
        Request.of(t, Handle.of("h2"), ctx, access("carol", 23, "telnet").toClientSI()),
        Request.of(t, Handle.of("h3"), ctx, access("dave", 80, "http").toClientSI()),
        Request.of(t, Handle.of("h4"), ctx),
        new Report(t, true, Handle.of("h1"), new ReportTypeObject(ReportType.SUCCESS), null, null),
        new DeleteRequest(t, false, Handle.of("h2"), new Reason(2, 0), null),
        new SyncStateComplete(t, false, null, null),
        ClientClose.of(t, ErrorCode.SHUTTING_DOWN, 0));
  }

  /** Sends the session into {@code ch} and returns every message written, in hex, one a line. */
  static String run(EmbeddedChannel ch) throws Exception {
    StringBuilder out = new StringBuilder();
    for (CopsMessage m : session()) {
      ch.writeInbound(Unpooled.wrappedBuffer(CopsCodec.encode(m)));
      for (ByteBuf b = ch.readOutbound(); b != null; b = ch.readOutbound()) {
        for (byte[] message : EmbeddedPdpTest.frames(b)) {
          out.append(ByteBufUtil.hexDump(message)).append('\n');
        }
      }
    }
    return out.toString();
  }
}
