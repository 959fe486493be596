package dev.portcullis.cops.pcmm;

import static dev.portcullis.cops.pcmm.PcmmErrorCode.MISSING_REQUIRED_OBJECT;
import static dev.portcullis.cops.pcmm.PcmmErrorCode.objectSubcode;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.pcmm.PcmmObject.SNum;
import java.util.ArrayList;
import java.util.List;

/**
 * One gate control message: its objects in wire order, the first a Transaction ID whose Gate
 * Command Type says what the message is. {@link #missing()} checks the objects each command
 * requires (PKT-SP-MM-I02's message formats); {@link #unknown()} lists the objects kept unread.
 */
public record GateMessage(List<PcmmObject> objects) {
  public GateMessage {
    objects = List.copyOf(objects);
    if (objects.isEmpty() || !(objects.get(0) instanceof PcmmObject.TransactionId)) {
      throw new IllegalArgumentException(
          "gate control message: "
              + (objects.isEmpty() ? "no objects" : "first object " + objects.get(0))
              + " (expected: a Transaction ID first)");
    }
  }

  /** A message of {@code objects}, the Transaction ID first. */
  public static GateMessage of(PcmmObject... objects) {
    return new GateMessage(List.of(objects));
  }

  /**
   * Reads a message.
   *
   * @throws PcmmFormatException if an object cannot be read, or the first is not a Transaction ID
   *     (Missing Required Object, subcode 0x0101)
   */
  public static GateMessage decode(Bytes data) throws PcmmFormatException {
    return decode(data, Deviation.Sink.NONE);
  }

  /**
   * Reads a message, telling {@code deviations} what it read liberally ({@link Deviation}).
   *
   * @throws PcmmFormatException if an object cannot be read, or the first is not a Transaction ID
   *     (Missing Required Object, subcode 0x0101)
   */
  public static GateMessage decode(Bytes data, Deviation.Sink deviations)
      throws PcmmFormatException {
    List<PcmmObject> objects = PcmmObjects.decode(data, deviations);
    if (objects.isEmpty() || !(objects.get(0) instanceof PcmmObject.TransactionId)) {
      throw PcmmFormatException.at(
          MISSING_REQUIRED_OBJECT,
          objectSubcode(SNum.TRANSACTION_ID, 1),
          0,
          "first object",
          objects.isEmpty() ? "none" : objects.get(0).sNum() + "/" + objects.get(0).sType(),
          "Transaction ID (1/1)");
    }
    return new GateMessage(objects);
  }

  /**
   * The Transaction ID a message that cannot be read as a whole begins with, or null when even that
   * cannot be read: what lets a receiver answer a message it cannot act on (an -Err) and tie an
   * answer it cannot read to its transaction.
   */
  public static PcmmObject.TransactionId leadingTransactionId(Bytes data) {
    if (data.length() < 8) {
      return null;
    }
    byte[] b = data.slice(0, 8).toArray();
    if (b[0] != 0 || b[1] != 8 || b[2] != SNum.TRANSACTION_ID || b[3] != 1) {
      return null;
    }
    return new PcmmObject.TransactionId(
        (b[4] & 0xFF) << 8 | b[5] & 0xFF, (b[6] & 0xFF) << 8 | b[7] & 0xFF);
  }

  /** The wire form: the objects one after another. */
  public Bytes encode() {
    return PcmmObjects.encode(objects);
  }

  public PcmmObject.TransactionId transactionId() {
    return (PcmmObject.TransactionId) objects.get(0);
  }

  /** The Gate Command Type, or null for one this implementation does not know. */
  public GateCommand command() {
    return transactionId().gateCommand();
  }

  public PcmmObject.Amid amid() {
    return first(PcmmObject.Amid.class);
  }

  public PcmmObject.SubscriberId subscriber() {
    return first(PcmmObject.SubscriberId.class);
  }

  public PcmmObject.GateId gateId() {
    return first(PcmmObject.GateId.class);
  }

  public PcmmObject.GateSpec gateSpec() {
    return first(PcmmObject.GateSpec.class);
  }

  public TrafficProfile trafficProfile() {
    return first(TrafficProfile.class);
  }

  public List<PcmmClassifier> classifiers() {
    return all(PcmmClassifier.class);
  }

  public PcmmObject.PacketCableError error() {
    return first(PcmmObject.PacketCableError.class);
  }

  public PcmmObject.GateState gateState() {
    return first(PcmmObject.GateState.class);
  }

  /** The objects kept unread, in order. */
  public List<PcmmObject.Unknown> unknown() {
    return all(PcmmObject.Unknown.class);
  }

  /** The first object of {@code type}, or null. */
  public <T extends PcmmObject> T first(Class<T> type) {
    for (PcmmObject o : objects) {
      if (type.isInstance(o)) {
        return type.cast(o);
      }
    }
    return null;
  }

  /** Every object of {@code type}, in order. */
  public <T extends PcmmObject> List<T> all(Class<T> type) {
    List<T> l = new ArrayList<>();
    for (PcmmObject o : objects) {
      if (type.isInstance(o)) {
        l.add(type.cast(o));
      }
    }
    return l;
  }

  /**
   * The Missing Required Object error for the first object this message's command requires and it
   * lacks (the subcode names the object, S-Num and S-Type 1 for a family), or null if it has them
   * all. A command this implementation does not know requires nothing here: the answer to it is an
   * Invalid-Gate-Cmd-Err, which is the caller's to send.
   */
  public PcmmObject.PacketCableError missing() {
    GateCommand c = command();
    if (c == null) {
      return null;
    }
    List<Class<? extends PcmmObject>> need = new ArrayList<>();
    switch (c) {
      case GATE_SET:
        need.addAll(
            List.of(
                PcmmObject.Amid.class,
                PcmmObject.SubscriberId.class,
                PcmmObject.GateSpec.class,
                TrafficProfile.class,
                PcmmClassifier.class));
        break;
      case GATE_SET_ACK:
      case GATE_INFO:
      case GATE_INFO_ACK:
      case GATE_DELETE:
      case GATE_DELETE_ACK:
        need.addAll(
            List.of(PcmmObject.Amid.class, PcmmObject.SubscriberId.class, PcmmObject.GateId.class));
        break;
      case GATE_SET_ERR:
        need.addAll(
            List.of(
                PcmmObject.Amid.class,
                PcmmObject.SubscriberId.class,
                PcmmObject.PacketCableError.class));
        break;
      case GATE_INFO_ERR:
      case GATE_DELETE_ERR:
        need.addAll(
            List.of(
                PcmmObject.Amid.class,
                PcmmObject.SubscriberId.class,
                PcmmObject.GateId.class,
                PcmmObject.PacketCableError.class));
        break;
      case GATE_REPORT_STATE:
        need.addAll(
            List.of(
                PcmmObject.Amid.class,
                PcmmObject.SubscriberId.class,
                PcmmObject.GateId.class,
                PcmmObject.GateState.class));
        break;
      case INVALID_GATE_CMD_ERR:
      case PDP_CONFIG_ERR:
        need.add(PcmmObject.PacketCableError.class);
        break;
      case PDP_CONFIG:
        need.add(AfterI02.Psid.class);
        break;
      case SYNCH_REQUEST:
        need.add(AfterI02.SynchOptions.class);
        break;
      case SYNCH_REPORT:
        need.addAll(
            List.of(PcmmObject.Amid.class, PcmmObject.SubscriberId.class, PcmmObject.GateId.class));
        break;
      default:
        break;
    }
    for (Class<? extends PcmmObject> t : need) {
      if (first(t) == null) {
        return new PcmmObject.PacketCableError(
            MISSING_REQUIRED_OBJECT.code(), objectSubcode(sNumOf(t), 1));
      }
    }
    return null;
  }

  private static int sNumOf(Class<? extends PcmmObject> t) {
    if (t == PcmmObject.Amid.class) {
      return SNum.AMID;
    }
    if (t == PcmmObject.SubscriberId.class) {
      return SNum.SUBSCRIBER_ID;
    }
    if (t == PcmmObject.GateId.class) {
      return SNum.GATE_ID;
    }
    if (t == PcmmObject.GateSpec.class) {
      return SNum.GATE_SPEC;
    }
    if (t == TrafficProfile.class) {
      return SNum.TRAFFIC_PROFILE;
    }
    if (t == PcmmClassifier.class) {
      return SNum.CLASSIFIER;
    }
    if (t == PcmmObject.GateState.class) {
      return SNum.GATE_STATE;
    }
    if (t == AfterI02.Psid.class) {
      return SNum.PSID;
    }
    if (t == AfterI02.SynchOptions.class) {
      return SNum.SYNCH_OPTIONS;
    }
    return SNum.PACKETCABLE_ERROR;
  }

  @Override
  public String toString() {
    GateCommand c = command();
    return (c == null ? "gate command " + transactionId().command() : c.description())
        + " #"
        + transactionId().id()
        + " "
        + objects.subList(1, objects.size());
  }
}
