package dev.portcullis.pep;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.Enrolment;
import dev.portcullis.cops.tls.TlsSettings;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.pki.DevCertificates;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * A PEP's enrolment with a one-time credential: makes a new key pair (ECDSA P-256), asks the PDP
 * over TLS — the PDP authenticated by its certificate, the PEP by the credential — for a
 * certificate bound to its PEP id, and stores key and certificate where its TLS configuration will
 * look for them. The private key never leaves the PEP.
 */
public final class PepEnrolment {
  private PepEnrolment() {}

  /** What enrolment produced. */
  public record Result(X509Certificate certificate, Path certificateFile, Path keyFile) {}

  /**
   * Enrols.
   *
   * @param tls the TLS settings (engine, protocols) to reach the PDP with
   * @param trust the CA certificates that authenticate the PDP
   * @param authorisedPdps names the PDP certificate must carry one of (empty: the host's)
   * @param token the credential, {@code ID.SECRET}, as {@code pdp-server issue-credential} printed
   * @param certificateOut where the certificate chain goes (PEM)
   * @param keyOut where the private key goes (PKCS#8 PEM, owner-only)
   * @throws PepException the PDP's refusal with its reason, or a connection failure
   */
  public static Result enrol(
      InetSocketAddress pdp,
      String pepId,
      TlsSettings tls,
      Path trust,
      List<String> authorisedPdps,
      String token,
      Path certificateOut,
      Path keyOut)
      throws PepException, IOException, InterruptedException {
    int dot = token.indexOf('.');
    byte[] secret;
    try {
      secret = Base64.getUrlDecoder().decode(dot < 0 ? "" : token.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      secret = new byte[0];
    }
    if (dot <= 0 || secret.length != 32) {
      throw new PepException(
          ErrorCode.CLIENT_FAILURE.code(),
          0,
          "credential: not one pdp-server issue-credential printed (expected: ID.SECRET)");
    }
    KeyPair kp;
    byte[] csr;
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      kp = g.generateKeyPair();
      csr =
          new JcaPKCS10CertificationRequestBuilder(
                  new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, pepId).build(),
                  kp.getPublic())
              .build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate()))
              .getEncoded();
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot make a key pair and request: " + e.getMessage(), e);
    }
    Enrolment.Request request =
        new Enrolment.Request(token.substring(0, dot), Bytes.of(secret), Bytes.of(csr));
    Arrays.fill(secret, (byte) 0);
    PepSecurity security =
        new PepSecurity(
            tls,
            true,
            null,
            null,
            trust,
            authorisedPdps,
            new PepSecurity.SessionReuse(Duration.ZERO, 0),
            null);
    PepDecision d;
    try (PepClient pep =
        PepClient.builder()
            .pdp(pdp)
            .pepId(pepId)
            .clientType(Enrolment.CLIENT_TYPE)
            .security(security)
            .requestTimeout(Duration.ofSeconds(30))
            .build()) {
      pep.open().get(30, TimeUnit.SECONDS);
      d =
          pep.exchange("enrol", new Context(Context.R_CONFIGURATION, 0), request.toClientSI())
              .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof PepException) {
        throw (PepException) e.getCause();
      }
      throw new IOException("enrolment failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new PepException(
          ErrorCode.COMMUNICATION_FAILURE.code(), 0, "no answer from PDP " + pdp + " in 30 s");
    }
    Enrolment.Response r;
    try {
      r =
          d.clientData() == null
              ? new Enrolment.Response(List.of(), "no decision data")
              : Enrolment.Response.decode(d.clientData());
    } catch (CopsCodecException e) {
      throw new IOException("PDP's enrolment answer unreadable: " + e.getMessage(), e);
    }
    if (!d.granted() || !r.granted()) {
      throw new PepException(
          ErrorCode.AUTHENTICATION_FAILURE.code(), 0, "PDP refused enrolment: " + r.reason());
    }
    StringBuilder chain = new StringBuilder();
    X509Certificate leaf = null;
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      for (Bytes b : r.certificates()) {
        X509Certificate c =
            (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(b.toArray()));
        if (leaf == null) {
          leaf = c;
          if (!c.getPublicKey().equals(kp.getPublic())) {
            throw new IOException("the PDP's certificate is not for the key this PEP made");
          }
        }
        chain.append(DevCertificates.toPem(c));
      }
    } catch (GeneralSecurityException e) {
      throw new IOException("PDP's certificate unreadable: " + e.getMessage(), e);
    }
    write(keyOut, DevCertificates.toPem(kp.getPrivate()));
    write(certificateOut, chain.toString());
    return new Result(leaf, certificateOut, keyOut);
  }

  /**
   * Owner-only, whole or not at all (a crash leaves the old file or the new), its missing
   * directories made owner-only; the certificate as the key, nothing of them for others to read.
   */
  private static void write(Path target, String content) throws IOException {
    DurableFiles.write(target, content.getBytes(StandardCharsets.US_ASCII));
  }
}
