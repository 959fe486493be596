package dev.portcullis.cops.access;

import static dev.portcullis.cops.ErrorCode.BAD_MESSAGE_FORMAT;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.DecisionData;
import dev.portcullis.cops.DecisionDataKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Portcullis enrolment client type (0xC0A7): a PEP that holds no certificate yet proves
 * possession of a one-time credential over a server-authenticated TLS connection and receives its
 * certificate. A REQ carries an {@link Request} in its ClientSI; the DEC answers with an {@link
 * Response} as Client Specific Decision Data, Install with the certificate chain or Remove with the
 * reason. Same attribute framing as the access client type; byte by byte in docs/tls.md.
 */
public final class Enrolment {
  public static final int CLIENT_TYPE = 0xC0A7;

  private Enrolment() {}

  /** Request attribute types. */
  static final class RequestType {
    static final int CREDENTIAL_ID = 1;
    static final int SECRET = 2;
    static final int CSR = 3;
  }

  /** Response attribute types. */
  static final class ResponseType {
    static final int CERTIFICATE = 1;
    static final int REASON = 2;
  }

  /**
   * An enrolment request.
   *
   * @param credentialId names the one-time credential (ASCII)
   * @param secret the credential's secret (32 bytes), proof of possession
   * @param csr a PKCS#10 certification request (DER) for the PEP's new key, subject CN = its id
   */
  public record Request(String credentialId, Bytes secret, Bytes csr) {
    public Request {
      Objects.requireNonNull(credentialId, "credentialId");
      Objects.requireNonNull(secret, "secret");
      Objects.requireNonNull(csr, "csr");
    }

    public ClientSI toClientSI() {
      return new ClientSI(false, encode());
    }

    public Bytes encode() {
      return new Tlv.Writer()
          .utf8(RequestType.CREDENTIAL_ID, credentialId)
          .put(RequestType.SECRET, secret.toArray())
          .put(RequestType.CSR, csr.toArray())
          .toBytes();
    }

    /** Reads a request; offsets in errors are from the start of the ClientSI contents. */
    public static Request decode(Bytes data) throws CopsCodecException {
      String id = null;
      Bytes secret = null;
      Bytes csr = null;
      for (TlvBlock.Attribute a : Tlv.read(data)) {
        switch (a.type()) {
          case RequestType.CREDENTIAL_ID:
            if (id != null) {
              throw AccessRequest.duplicate(a);
            }
            id = Tlv.utf8(a, "credential id");
            break;
          case RequestType.SECRET:
            if (secret != null) {
              throw AccessRequest.duplicate(a);
            }
            secret = a.value();
            break;
          case RequestType.CSR:
            if (csr != null) {
              throw AccessRequest.duplicate(a);
            }
            csr = a.value();
            break;
          default:
            throw CopsCodecException.at(
                BAD_MESSAGE_FORMAT, 0, a.offset(), "attribute type", a.type(), "1 to 3");
        }
      }
      if (id == null || secret == null || csr == null) {
        throw CopsCodecException.at(
            BAD_MESSAGE_FORMAT,
            0,
            0,
            "enrolment request",
            "incomplete",
            "credential id (1), secret (2) and CSR (3)");
      }
      return new Request(id, secret, csr);
    }
  }

  /** An enrolment answer: the certificate chain (leaf first, DER) when granted, else the reason. */
  public record Response(List<Bytes> certificates, String reason) {
    public Response {
      certificates = List.copyOf(certificates);
    }

    public boolean granted() {
      return !certificates.isEmpty();
    }

    public DecisionData toDecisionData() {
      return new DecisionData(false, DecisionDataKind.CLIENT_SPECIFIC, encode());
    }

    public Bytes encode() {
      Tlv.Writer w = new Tlv.Writer();
      for (Bytes c : certificates) {
        w.put(ResponseType.CERTIFICATE, c.toArray());
      }
      if (reason != null) {
        w.utf8(ResponseType.REASON, reason);
      }
      return w.toBytes();
    }

    public static Response decode(Bytes data) throws CopsCodecException {
      List<Bytes> certs = new ArrayList<>();
      String reason = null;
      for (TlvBlock.Attribute a : Tlv.read(data)) {
        switch (a.type()) {
          case ResponseType.CERTIFICATE:
            certs.add(a.value());
            break;
          case ResponseType.REASON:
            if (reason != null) {
              throw AccessRequest.duplicate(a);
            }
            reason = Tlv.utf8(a, "reason");
            break;
          default:
            throw CopsCodecException.at(
                BAD_MESSAGE_FORMAT, 0, a.offset(), "attribute type", a.type(), "1 or 2");
        }
      }
      return new Response(certs, reason);
    }
  }
}
