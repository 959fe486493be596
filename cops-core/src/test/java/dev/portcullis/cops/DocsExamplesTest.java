package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessDecision;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.cops.access.Enrolment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every hex example in docs/cops-wire.md and docs/tls.md decodes and re-encodes to the same bytes.
 */
class DocsExamplesTest {
  private static final Pattern EXAMPLE =
      Pattern.compile("<!-- example: ([^>]+?) -->\\s*```hex\\n(.*?)```", Pattern.DOTALL);

  static Map<String, byte[]> examples() throws Exception {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (String file : new String[] {"cops-wire.md", "tls.md"}) {
      Matcher m = EXAMPLE.matcher(Files.readString(Path.of("..", "docs", file)));
      while (m.find()) {
        if (out.put(m.group(1), Hex.bytes(m.group(2))) != null) {
          throw new AssertionError("example named twice: " + m.group(1));
        }
      }
    }
    return out;
  }

  @Test
  void everyExampleIsAValidMessage() throws Exception {
    Map<String, byte[]> ex = examples();
    assertTrue(ex.size() >= 13, "examples found: " + ex.keySet());
    for (Map.Entry<String, byte[]> e : ex.entrySet()) {
      CopsMessage m;
      try {
        m = CopsCodec.decode(e.getValue());
      } catch (CopsCodecException x) {
        throw new AssertionError(e.getKey() + ": " + x.getMessage(), x);
      }
      assertEquals(Hex.of(e.getValue()), Hex.of(CopsCodec.encode(m)), e.getKey());
    }
  }

  @Test
  void theTlsNegotiationExamplesAreWhatThePdpAndPepSend() throws Exception {
    Map<String, byte[]> ex = examples();
    ClientOpen opn = (ClientOpen) CopsCodec.decode(ex.get("RFC 4261 OPN, client-type 0"));
    assertEquals(0, opn.clientType());
    assertTrue(((IntegrityTls) opn.integrity()).startTls());
    ClientAccept cat = (ClientAccept) CopsCodec.decode(ex.get("RFC 4261 CAT, client-type 0"));
    assertEquals(30, cat.kaTimer().seconds());
    assertTrue(((IntegrityTls) cat.integrity()).startTls());
    ClientClose cc = (ClientClose) CopsCodec.decode(ex.get("CC TLS required"));
    assertEquals(ErrorCode.AUTHENTICATION_REQUIRED.code(), cc.error().code());
    assertEquals(ErrorCode.SUB_CODE_TLS_REQUIRED, cc.error().subCode());
  }

  @Test
  void theEnrolmentExamplesCarryTheDocumentedAttributes() throws Exception {
    Map<String, byte[]> ex = examples();
    Request req = (Request) CopsCodec.decode(ex.get("enrolment REQ"));
    assertEquals(Enrolment.CLIENT_TYPE, req.clientType());
    var r = Enrolment.Request.decode(req.clientSIs().get(0).data());
    assertEquals("otc-5f0c2a91d4e3b876", r.credentialId());
    assertEquals(32, r.secret().length());
    assertEquals("3003020100", Hex.of(r.csr().toArray()));
    Decision dec = (Decision) CopsCodec.decode(ex.get("enrolment DEC refused"));
    var resp = Enrolment.Response.decode(dec.decisions().get(0).clientSpecific().data());
    assertEquals("credential otc-5f0c2a91d4e3b876 was used already", resp.reason());
    assertTrue(resp.certificates().isEmpty());
  }

  @Test
  void theAccessExamplesCarryTheDocumentedAttributes() throws Exception {
    Map<String, byte[]> ex = examples();
    Request req = (Request) CopsCodec.decode(ex.get("access REQ"));
    assertEquals(AccessRequest.CLIENT_TYPE, req.clientType());
    AccessRequest r = AccessRequest.decode(req.clientSIs().get(0).data());
    assertEquals("alice", r.subject());
    assertEquals(443, r.destinationPort());
    Decision dec = (Decision) CopsCodec.decode(ex.get("access DEC"));
    AccessDecision d = AccessDecision.decode(dec.decisions().get(0).clientSpecific().data());
    assertEquals("rule-7", d.ruleId());
    assertEquals(3600L, d.validForSeconds());
  }
}
