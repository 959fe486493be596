package dev.portcullis.support.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the PDP's authority certifies for a tunnel, and the public keys it refuses. */
class TunnelCertificatesTest {
  @TempDir Path dir;

  static final byte[] ED25519 =
      HexFormat.of()
          .parseHex(
              "302a300506032b6570032100"
                  + "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");

  @Test
  void aCertificateNamesTheTunnelTheSubjectAndTheIdentityForTheTunnelsLifetime() throws Exception {
    DevCertificates.Pki pki = DevCertificates.ensure(dir, List.of(), List.of());
    X509Certificate ca = DevCertificates.certificateFile(pki.caCertificate());
    Instant now = Instant.parse("2026-11-28T12:00:00Z");
    byte[] der =
        TunnelCertificates.issue(
            ca,
            DevCertificates.privateKeyFile(dir.resolve("ca.key")),
            ED25519,
            "alice",
            "t-866d0eee225bc2ad",
            "alice-1@vpn.lab",
            now,
            Duration.ofHours(1));
    X509Certificate c =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    c.verify(ca.getPublicKey());
    assertEquals(
        "CN=alice,OU=t-866d0eee225bc2ad,O=Portcullis tunnel",
        c.getSubjectX500Principal().getName());
    assertEquals(
        List.of(List.of(1, "alice-1@vpn.lab")), List.copyOf(c.getSubjectAlternativeNames()));
    assertEquals(now.plus(Duration.ofHours(1)), c.getNotAfter().toInstant());
    assertEquals(now.minus(TunnelCertificates.SKEW), c.getNotBefore().toInstant());
    assertEquals(-1, c.getBasicConstraints(), "not a CA");
    assertTrue(c.getKeyUsage()[0], "digitalSignature");
  }

  @Test
  void identitiesBecomeTheNamesCharonMatches() throws Exception {
    assertEquals(2, TunnelCertificates.name("gw-1.lab").getTagNo(), "dNSName");
    assertEquals(1, TunnelCertificates.name("alice@vpn.lab").getTagNo(), "rfc822Name");
    assertEquals(7, TunnelCertificates.name("192.0.2.2").getTagNo(), "iPAddress");
    assertThrows(GeneralSecurityException.class, () -> TunnelCertificates.name("C=CH, CN=x y"));
  }

  @Test
  void publicKeysThatAreNotEd25519OrP256OrNotPointsAreRefused() throws Exception {
    assertEquals("ed25519", TunnelCertificates.keyType(ED25519));
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    assertEquals("ecdsa", TunnelCertificates.keyType(g.generateKeyPair().getPublic().getEncoded()));
    g.initialize(new ECGenParameterSpec("secp384r1"));
    byte[] p384 = g.generateKeyPair().getPublic().getEncoded();
    assertTrue(refusal(p384).contains("P-256"));
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    assertTrue(refusal(rsa.generateKeyPair().getPublic().getEncoded()).contains("1.2.840.113549"));
    byte[] trailing = java.util.Arrays.copyOf(ED25519, ED25519.length + 1);
    assertTrue(refusal(trailing).contains("DER"));
    byte[] notAPoint = ED25519.clone();
    java.util.Arrays.fill(notAPoint, 12, 44, (byte) 0xff);
    assertTrue(refusal(notAPoint).contains("not a valid point"));
    assertTrue(refusal(new byte[] {0x30, 0x03, 0x02, 0x01}).contains("SubjectPublicKeyInfo"));
    byte[] short31 =
        java.util.HexFormat.of().parseHex("3029300506032b65700320" + "00" + "11".repeat(31));
    assertEquals("the Ed25519 public key is 31 bytes (expected: 32)", refusal(short31));
  }

  static String refusal(byte[] spki) {
    return assertThrows(GeneralSecurityException.class, () -> TunnelCertificates.keyType(spki))
        .getMessage();
  }
}
