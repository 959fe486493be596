package dev.portcullis.nativecrypto;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Calls every native entry point, including its error paths, for {@link CheckJniTest} to run under
 * {@code -Xcheck:jni} in a fresh JVM.
 */
public final class NativeWorkout {
  private NativeWorkout() {}

  public static void main(String[] args) throws Exception {
    NativeCrypto.ensureAvailability();
    System.out.println(NativeCrypto.openSslVersion());
    byte[] msg = new byte[3000];
    ByteBuffer direct = ByteBuffer.allocateDirect(3000);
    for (NativeHmac.Digest d : NativeHmac.Digest.values()) {
      for (int round = 0; round < 50; round++) {
        try (NativeHmac h = NativeHmac.create(d, new byte[round + 1])) {
          byte[] out = new byte[64];
          h.update(msg, 1, 100);
          h.update(msg, 0, 0);
          direct.clear();
          h.update(direct);
          h.doFinal(out, 0);
          h.oneShot(msg, 0, round * 10, out, 0);
          direct.clear();
          h.oneShot(direct, out, 0);
          h.update(msg, 0, 10);
          h.reset();
          try (NativeHmac c = h.copy()) {
            c.doFinal(out, 0);
          }
        }
      }
      Mac m = Mac.getInstance("Hmac" + d.name(), new PortcullisNativeProvider());
      m.init(new SecretKeySpec(new byte[20], "Hmac" + d.name()));
      m.update((byte) 1);
      ((Mac) m.clone()).doFinal();
      m.doFinal();
    }
    for (String name : new String[] {"SHA-256", "SHA-512"}) {
      MessageDigest md = MessageDigest.getInstance(name, new PortcullisNativeProvider());
      md.update(msg, 0, 100);
      direct.clear();
      md.update(direct);
      md.update((byte) 1);
      ((MessageDigest) md.clone()).digest();
      md.digest();
      md.update(msg);
      md.reset();
    }
    SecretKeySpec aesKey = new SecretKeySpec(new byte[16], "AES");
    for (String t :
        new String[] {"AES/GCM/NoPadding", "AES/CTR/NoPadding", "AES/CBC/PKCS5Padding"}) {
      Cipher enc = Cipher.getInstance(t, new PortcullisNativeProvider());
      enc.init(Cipher.ENCRYPT_MODE, aesKey);
      if (t.contains("GCM")) {
        enc.updateAAD(msg, 0, 20);
      }
      byte[] head = enc.update(msg, 0, 1000);
      byte[] tail = enc.doFinal(msg, 1000, 37);
      byte[] ct = Arrays.copyOf(head, head.length + tail.length);
      System.arraycopy(tail, 0, ct, head.length, tail.length);
      Cipher dec = Cipher.getInstance(t, new PortcullisNativeProvider());
      dec.init(Cipher.DECRYPT_MODE, aesKey, enc.getParameters());
      if (t.contains("GCM")) {
        dec.updateAAD(msg, 0, 20);
      }
      dec.doFinal(ct);
      if (t.contains("GCM")) {
        ct[0] ^= 1;
        dec.updateAAD(msg, 0, 20);
        try {
          dec.doFinal(ct);
          throw new AssertionError("a tampered message decrypted");
        } catch (AEADBadTagException expected) {
          System.out.println("refused: " + expected.getMessage());
        }
      }
    }
    // GCM's pinned one-call path: text past the staging buffer, additional data past its room
    byte[] big = new byte[4000];
    byte[] bigAad = new byte[300];
    for (int round = 0; round < 2; round++) {
      Cipher enc = Cipher.getInstance("AES/GCM/NoPadding", new PortcullisNativeProvider());
      enc.init(Cipher.ENCRYPT_MODE, aesKey);
      enc.updateAAD(bigAad);
      byte[] sealed = Arrays.copyOf(big, big.length + 16);
      int n = round == 0 ? enc.doFinal(sealed, 0, big.length, sealed, 0) : enc.doFinal(big).length;
      Cipher dec = Cipher.getInstance("AES/GCM/NoPadding", new PortcullisNativeProvider());
      dec.init(Cipher.DECRYPT_MODE, aesKey, enc.getParameters());
      dec.updateAAD(bigAad);
      if (round == 0 && dec.doFinal(sealed, 0, n).length != big.length) {
        throw new AssertionError("GCM in place: wrong length");
      }
    }
    try {
      NativeCrypto.digestNew(1);
      throw new AssertionError("MD5 as a digest was accepted");
    } catch (IllegalArgumentException expected) {
      System.out.println("refused: " + expected.getMessage());
    }
    try {
      NativeCrypto.hmacNew(99, new byte[16]);
      throw new AssertionError("an unknown digest was accepted");
    } catch (IllegalArgumentException expected) {
      System.out.println("refused: " + expected.getMessage());
    }
    System.out.println("workout done");
  }
}
