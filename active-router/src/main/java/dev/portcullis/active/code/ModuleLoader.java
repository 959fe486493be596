package dev.portcullis.active.code;

import dev.portcullis.active.service.ActiveService;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.CodeSigner;
import java.security.cert.Certificate;
import java.util.HashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;

/**
 * Checks a code module's signature and loads it: every class file must be signed by the Code
 * Server's certificate (the one given, pinned from the TLS connection that served the module),
 * nothing may be added, changed or unsigned; then the classes go into a class loader of the
 * module's own, which defines them from the verified bytes before it asks its parent (so a class of
 * the same name on the router's class path is not what runs).
 */
public final class ModuleLoader {
  private ModuleLoader() {}

  /** Why a module was refused. */
  public static final class RejectedModuleException extends Exception {
    private static final long serialVersionUID = 1L;

    public RejectedModuleException(String message) {
      super(message);
    }

    public RejectedModuleException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Verifies and loads the module {@code jar}, returning a new instance of its service. */
  public static ActiveService load(byte[] jar, Certificate signer, String what)
      throws RejectedModuleException {
    Map<String, byte[]> classes = new HashMap<>();
    Manifest manifest;
    try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar), true)) {
      manifest = in.getManifest();
      if (manifest == null) {
        throw new RejectedModuleException(what + ": no manifest");
      }
      for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
        byte[] bytes = in.readAllBytes(); // checks the entry's digest; a mismatch throws
        String name = e.getName();
        if (e.isDirectory() || name.startsWith("META-INF/")) {
          continue;
        }
        if (!signedBy(e.getCodeSigners(), signer)) {
          throw new RejectedModuleException(
              what + ": " + name + " is not signed by the Code Server");
        }
        if (!name.endsWith(".class")) {
          throw new RejectedModuleException(what + ": unexpected entry " + name);
        }
        classes.put(name.substring(0, name.length() - 6).replace('/', '.'), bytes);
      }
    } catch (SecurityException e) {
      throw new RejectedModuleException(what + ": signature check failed: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new RejectedModuleException(what + ": not a readable jar: " + e.getMessage(), e);
    }
    String className = manifest.getMainAttributes().getValue(ModuleSigner.SERVICE_CLASS);
    if (className == null || !classes.containsKey(className)) {
      throw new RejectedModuleException(
          what
              + ": the manifest's "
              + ModuleSigner.SERVICE_CLASS
              + " ("
              + className
              + ") is not a class in the module");
    }
    try {
      Class<?> c = new ModuleClassLoader(what, classes).loadClass(className);
      if (!ActiveService.class.isAssignableFrom(c)) {
        throw new RejectedModuleException(what + ": " + className + " is not an ActiveService");
      }
      return (ActiveService) c.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new RejectedModuleException(what + ": cannot instantiate " + className + ": " + e, e);
    }
  }

  private static boolean signedBy(CodeSigner[] signers, Certificate expected) {
    if (signers == null) {
      return false;
    }
    for (CodeSigner s : signers) {
      if (!s.getSignerCertPath().getCertificates().isEmpty()
          && s.getSignerCertPath().getCertificates().get(0).equals(expected)) {
        return true;
      }
    }
    return false;
  }

  /** Defines the module's classes from its verified bytes, before asking the parent. */
  private static final class ModuleClassLoader extends ClassLoader {
    private final Map<String, byte[]> classes;

    ModuleClassLoader(String name, Map<String, byte[]> classes) {
      super("module " + name, ActiveService.class.getClassLoader());
      this.classes = classes;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        if (c == null) {
          byte[] b = classes.get(name);
          c = b != null ? defineClass(name, b, 0, b.length) : getParent().loadClass(name);
        }
        if (resolve) {
          resolveClass(c);
        }
        return c;
      }
    }
  }
}
