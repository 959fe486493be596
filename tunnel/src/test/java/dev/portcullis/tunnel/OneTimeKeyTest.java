package dev.portcullis.tunnel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.pki.TunnelCertificates;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import org.junit.jupiter.api.Test;

/** The agent's one-time keys read as the JDK reads Ed25519 keys (RFC 8410), and zero for real. */
class OneTimeKeyTest {
  @Test
  void itsEncodingsAreRfc8410sAndTheKeysAreAPair() throws Exception {
    OneTimeKey k = OneTimeKey.generate(new SecureRandom());
    byte[] spki = k.publicKeyInfo();
    byte[] pkcs8 = k.pkcs8();
    assertEquals(44, spki.length);
    assertEquals(48, pkcs8.length);
    KeyFactory f = KeyFactory.getInstance("Ed25519");
    PublicKey pub = f.generatePublic(new X509EncodedKeySpec(spki));
    PrivateKey priv = f.generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    Signature s = Signature.getInstance("Ed25519");
    s.initSign(priv);
    byte[] m = "IKE_AUTH".getBytes(StandardCharsets.US_ASCII);
    s.update(m);
    byte[] sig = s.sign();
    s.initVerify(pub);
    s.update(m);
    assertTrue(s.verify(sig), "the public key sent is the private key's");
    assertEquals("ed25519", TunnelCertificates.keyType(spki), "and the PDP's check takes it");
    assertTrue(k.matches(spki));
  }

  @Test
  void zeroedItHoldsNoSecretAndNoStringShowsIt() {
    OneTimeKey k = OneTimeKey.generate(new SecureRandom());
    byte[] before = k.pkcs8();
    k.zero();
    byte[] after = k.pkcs8();
    assertFalse(java.util.Arrays.equals(before, after));
    assertArrayEquals(new byte[32], java.util.Arrays.copyOfRange(after, 16, 48));
    assertFalse(k.toString().matches(".*[0-9a-f]{16}.*"), k.toString());
  }
}
