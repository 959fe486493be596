package dev.portcullis.cops;

import java.util.List;

/**
 * The ten COPS operations of RFC 2748 section 3, each a validated value whose components follow the
 * operation's grammar: mandatory objects are non-null, optional ones may be null, repeated ones are
 * (possibly empty) unmodifiable lists, and the Integrity object, when present, is last.
 *
 * <p>Every message carries the common header's client type (0 to 65535) and solicited flag; version
 * 1 and the length are implied.
 */
public sealed interface CopsMessage
    permits Request,
        Decision,
        Report,
        DeleteRequest,
        SyncStateRequest,
        ClientOpen,
        ClientAccept,
        ClientClose,
        KeepAlive,
        SyncStateComplete {
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
}
