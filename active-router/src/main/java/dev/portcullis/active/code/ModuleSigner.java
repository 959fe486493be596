package dev.portcullis.active.code;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.CertPath;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import jdk.security.jarsigner.JarSigner;

/**
 * Packs a code module — an {@link dev.portcullis.active.service.ActiveService} class and its inner
 * classes, taken from this JVM's class path — into a jar and signs it (SHA-256 digests, ECDSA), as
 * {@code jarsigner} would.
 */
final class ModuleSigner {
  /** The manifest attribute naming the service class. */
  public static final String SERVICE_CLASS = "Active-Service-Class";

  private final PrivateKey key;
  private final CertPath chain;

  public ModuleSigner(PrivateKey key, List<X509Certificate> chain) {
    this.key = key;
    try {
      this.chain = CertificateFactory.getInstance("X.509").generateCertPath(chain);
    } catch (CertificateException e) {
      throw new IllegalArgumentException("signing chain: " + e.getMessage(), e);
    }
  }

  /** The signed module jar for {@code className}. */
  public byte[] module(String className, Path workDir) throws IOException {
    Class<?> c;
    try {
      c = Class.forName(className, false, ModuleSigner.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IOException("service class " + className + " is not on the class path", e);
    }
    Manifest mf = new Manifest();
    mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    mf.getMainAttributes().put(new Attributes.Name(SERVICE_CLASS), className);
    Path unsigned = Files.createTempFile(workDir, "module-", ".jar");
    try {
      try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(unsigned), mf)) {
        for (String entry : classEntries(c)) {
          out.putNextEntry(new JarEntry(entry));
          try (InputStream in = ModuleSigner.class.getClassLoader().getResourceAsStream(entry)) {
            if (in == null) {
              throw new IOException("class file " + entry + " not readable");
            }
            in.transferTo(out);
          }
          out.closeEntry();
        }
      }
      ByteArrayOutputStream signed = new ByteArrayOutputStream();
      try (ZipFile zip = new ZipFile(unsigned.toFile())) {
        new JarSigner.Builder(key, chain)
            .digestAlgorithm("SHA-256")
            .signatureAlgorithm("SHA256withECDSA")
            .signerName("ROSA-CS")
            .build()
            .sign(zip, signed);
      } catch (jdk.security.jarsigner.JarSignerException | NoSuchAlgorithmException e) {
        throw new IOException("signing the module of " + className + ": " + e.getMessage(), e);
      }
      return signed.toByteArray();
    } finally {
      Files.deleteIfExists(unsigned);
    }
  }

  /** The class files of {@code c} and of its nested classes, as jar entry names. */
  static List<String> classEntries(Class<?> c) throws IOException {
    String path = c.getName().replace('.', '/');
    String dir = path.substring(0, path.lastIndexOf('/') + 1);
    String simple = path.substring(path.lastIndexOf('/') + 1);
    List<String> out = new ArrayList<>();
    Path location;
    try {
      location = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | NullPointerException e) {
      throw new IOException("cannot tell where " + c.getName() + " was loaded from", e);
    }
    if (Files.isDirectory(location)) {
      try (Stream<Path> s = Files.list(location.resolve(dir))) {
        s.map(p -> p.getFileName().toString())
            .filter(n -> n.equals(simple + ".class") || n.startsWith(simple + "$"))
            .sorted()
            .forEach(n -> out.add(dir + n));
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        jar.stream()
            .map(JarEntry::getName)
            .filter(
                n ->
                    n.equals(path + ".class") || (n.startsWith(path + "$") && n.endsWith(".class")))
            .sorted()
            .forEach(out::add);
      }
    }
    if (out.isEmpty()) {
      throw new IOException("no class files for " + c.getName() + " in " + location);
    }
    return out;
  }
}
