package dev.portcullis.support.pki;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The development PKI: what it makes, who may read it, and that an independent verifier agrees. */
class DevCertificatesTest {
  @TempDir Path tmp;

  private static List<X509Certificate> chain(Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> out = new ArrayList<>();
      for (var c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        out.add((X509Certificate) c);
      }
      return out;
    }
  }

  private static PrivateKey key(Path file) throws Exception {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    assertTrue(pem.startsWith("-----BEGIN PRIVATE KEY-----"), "PKCS#8 PEM");
    byte[] der =
        Base64.getMimeDecoder()
            .decode(pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  @Test
  void makesAPrivateCaSignedPkiWithTheRightNames() throws Exception {
    Path dir = tmp.resolve("pki");
    var pki = DevCertificates.ensure(dir, List.of("pdp.example.net", "192.0.2.7"), List.of("gw-1"));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    for (Path k :
        List.of(
            dir.resolve("ca.key"), pki.pdp().privateKey(), pki.peps().get("gw-1").privateKey())) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(k)));
    }
    X509Certificate ca = chain(pki.caCertificate()).get(0);
    List<X509Certificate> pdp = chain(pki.pdp().certificateChain());
    assertEquals(2, pdp.size());
    pdp.get(0).verify(ca.getPublicKey());
    assertEquals(ca, pdp.get(1));
    assertTrue(ca.getBasicConstraints() >= 0);
    assertEquals(-1, pdp.get(0).getBasicConstraints());
    assertTrue(pdp.get(0).getExtendedKeyUsage().contains("1.3.6.1.5.5.7.3.1"));
    List<String> sans = new ArrayList<>();
    for (List<?> san : pdp.get(0).getSubjectAlternativeNames()) {
      sans.add(san.get(0) + ":" + san.get(1));
    }
    assertEquals(
        List.of(
            "2:localhost", "7:127.0.0.1", "7:0:0:0:0:0:0:0:1", "2:pdp.example.net", "7:192.0.2.7"),
        sans);
    X509Certificate pep = chain(pki.peps().get("gw-1").certificateChain()).get(0);
    pep.verify(ca.getPublicKey());
    assertTrue(pep.getSubjectX500Principal().getName().contains("CN=gw-1"));
    assertTrue(pep.getExtendedKeyUsage().contains("1.3.6.1.5.5.7.3.2"));

    // Each private key belongs to its certificate.
    Signature s = Signature.getInstance("SHA256withECDSA");
    s.initSign(key(pki.peps().get("gw-1").privateKey()));
    s.update(new byte[] {1, 2, 3});
    byte[] sig = s.sign();
    s.initVerify(pep.getPublicKey());
    s.update(new byte[] {1, 2, 3});
    assertTrue(s.verify(sig));
  }

  /**
   * Issue 47: a PKI made by a run on localhost was reused by a PDP listening on 192.0.2.2, whose
   * certificate then did not name its address, and every PEP refused it. The PDP's certificate is
   * issued again, by the same CA, when it does not name what is asked for now.
   */
  @Test
  void thePdpCertificateIsIssuedAgainWhenItDoesNotNameTheListenAddress() throws Exception {
    Path dir = tmp.resolve("pki");
    var first = DevCertificates.ensure(dir, List.of(), List.of());
    byte[] ca = Files.readAllBytes(first.caCertificate());
    var second = DevCertificates.ensure(dir, List.of("192.0.2.2"), List.of());
    assertArrayEquals(ca, Files.readAllBytes(second.caCertificate()), "the same CA");
    X509Certificate pdp = chain(second.pdp().certificateChain()).get(0);
    pdp.verify(chain(second.caCertificate()).get(0).getPublicKey());
    List<String> sans = new ArrayList<>();
    for (List<?> san : pdp.getSubjectAlternativeNames()) {
      sans.add(String.valueOf(san.get(1)));
    }
    assertTrue(sans.contains("192.0.2.2"), sans.toString());
    byte[] now = Files.readAllBytes(second.pdp().certificateChain());
    // named already (in another text form of an address, too): reused as it is
    DevCertificates.ensure(dir, List.of("192.0.2.2", "0:0:0:0:0:0:0:1"), List.of());
    assertArrayEquals(now, Files.readAllBytes(second.pdp().certificateChain()));
  }

  @Test
  void reusesWhatExistsAndIssuesNewPepsFromTheSameCa() throws Exception {
    Path dir = tmp.resolve("pki");
    var first = DevCertificates.ensure(dir, List.of(), List.of("gw-1"));
    byte[] ca = Files.readAllBytes(first.caCertificate());
    byte[] pdp = Files.readAllBytes(first.pdp().certificateChain());
    var second = DevCertificates.ensure(dir, List.of(), List.of("gw-1", "gw-2"));
    assertArrayEquals(ca, Files.readAllBytes(second.caCertificate()));
    assertArrayEquals(pdp, Files.readAllBytes(second.pdp().certificateChain()));
    X509Certificate caCert = chain(second.caCertificate()).get(0);
    chain(second.peps().get("gw-2").certificateChain()).get(0).verify(caCert.getPublicKey());
  }

  @Test
  void halfAKeyPairIsRefusedByName() throws Exception {
    Path dir = tmp.resolve("pki");
    DevCertificates.ensure(dir, List.of(), List.of("gw-1"));
    Files.delete(dir.resolve("pep-gw-1.key"));
    IOException e =
        assertThrows(
            IOException.class, () -> DevCertificates.ensure(dir, List.of(), List.of("gw-1")));
    assertTrue(e.getMessage().contains("pep-gw-1.crt without pep-gw-1.key"), e.getMessage());
  }

  @Test
  void leavesFromAReplacedCaAreRefusedByName() throws Exception {
    Path dir = tmp.resolve("pki");
    DevCertificates.ensure(dir, List.of(), List.of("gw-1"));
    Files.delete(dir.resolve("ca.crt"));
    Files.delete(dir.resolve("ca.key"));
    IOException e =
        assertThrows(
            IOException.class, () -> DevCertificates.ensure(dir, List.of(), List.of("gw-1")));
    assertTrue(e.getMessage().contains("pdp.crt was not issued by"), e.getMessage());
  }

  @Test
  void pepIdsThatCannotNameAFileAreRefused() {
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DevCertificates.ensure(tmp.resolve("pki"), List.of(), List.of("../evil")));
    assertTrue(e.getMessage().contains("'../evil'"));
  }

  @Test
  void looseDirectoryPermissionsAreTightened() throws Exception {
    Path dir = tmp.resolve("pki");
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    DevCertificates.ensure(dir, List.of(), List.of());
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
  }

  /** OpenSSL, which nobody here wrote, accepts the chains for their purposes. */
  @Test
  void opensslVerifiesTheChains() throws Exception {
    Path dir = tmp.resolve("pki");
    var pki = DevCertificates.ensure(dir, List.of(), List.of("gw-1"));
    Assumptions.assumeTrue(openssl("version") == 0, "openssl is not installed");
    assertEquals(
        0,
        openssl(
            "verify",
            "-purpose",
            "sslserver",
            "-verify_hostname",
            "localhost",
            "-CAfile",
            pki.caCertificate().toString(),
            pki.pdp().certificateChain().toString()));
    assertEquals(
        0,
        openssl(
            "verify",
            "-purpose",
            "sslclient",
            "-CAfile",
            pki.caCertificate().toString(),
            pki.peps().get("gw-1").certificateChain().toString()));
    assertEquals(0, openssl("pkey", "-noout", "-in", pki.pdp().privateKey().toString()));
  }

  private static int openssl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException notInstalled) {
      return -1;
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return -1;
    }
    if (p.exitValue() != 0) {
      System.err.println("openssl " + String.join(" ", args) + ": " + out);
    }
    return p.exitValue();
  }

  /** A PKI directory that is a link (to /etc, say) is refused before anything is changed. */
  @Test
  void aPkiDirectoryThatIsALinkIsRefusedAndItsTargetLeftAlone() throws Exception {
    Path etc = Files.createDirectory(tmp.resolve("etc"));
    Files.setPosixFilePermissions(etc, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path link = Files.createSymbolicLink(tmp.resolve("dev-pki"), etc);
    IOException e =
        assertThrows(
            IOException.class, () -> DevCertificates.ensure(link, List.of("pdp"), List.of("gw-1")));
    assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(etc)));
    try (var files = Files.list(etc)) {
      assertEquals(0, files.count(), "nothing written through the link");
    }
  }
}
