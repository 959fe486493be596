package dev.portcullis.active.code;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.active.TestDomain;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.config.RosaPki;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.service.builtin.PacketCounter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;
import java.util.jar.JarEntry;
import java.util.jar.JarInputStream;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Signed code modules: what the Code Server signs, a router loads; anything else it refuses. */
class ModuleTest {
  @TempDir static Path tmp;
  static RosaPki pki;
  static byte[] module;

  @BeforeAll
  static void sign() throws Exception {
    RosaConfig config = TestDomain.config(tmp);
    pki = RosaPki.ensure(config);
    module =
        new ModuleSigner(pki.serverKey(), pki.serverChain())
            .module(PacketCounter.class.getName(), tmp);
  }

  @Test
  void aSignedModuleLoadsIntoItsOwnClassLoader() throws Exception {
    ActiveService s = ModuleLoader.load(module, pki.serverChain().get(0), "counter");
    assertEquals(PacketCounter.class.getName(), s.getClass().getName());
    assertNotSame(PacketCounter.class, s.getClass(), "defined from the module's bytes");
    assertTrue(s.getClass().getClassLoader().getName().startsWith("module "));
  }

  /** Rewrites the jar entry by entry (the signature files untouched). */
  private static byte[] rewrite(BiFunction<String, byte[], byte[]> edit, String extra)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(module), false);
        JarOutputStream jar = new JarOutputStream(out, in.getManifest())) {
      for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
        byte[] b = edit.apply(e.getName(), in.readAllBytes());
        jar.putNextEntry(new JarEntry(e.getName()));
        jar.write(b);
        jar.closeEntry();
      }
      if (extra != null) {
        jar.putNextEntry(new JarEntry(extra));
        jar.write(new byte[] {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE});
        jar.closeEntry();
      }
    }
    return out.toByteArray();
  }

  @Test
  void aChangedClassIsRefused() throws Exception {
    byte[] changed =
        rewrite(
            (name, b) -> {
              if (name.endsWith("PacketCounter.class")) {
                b = b.clone();
                b[b.length / 2] ^= 1;
              }
              return b;
            },
            null);
    var e =
        assertThrows(
            ModuleLoader.RejectedModuleException.class,
            () -> ModuleLoader.load(changed, pki.serverChain().get(0), "counter"));
    assertTrue(e.getMessage().contains("signature check failed"), e.getMessage());
  }

  @Test
  void anAddedClassIsRefused() throws Exception {
    byte[] added = rewrite((n, b) -> b, "dev/portcullis/active/service/builtin/Evil.class");
    var e =
        assertThrows(
            ModuleLoader.RejectedModuleException.class,
            () -> ModuleLoader.load(added, pki.serverChain().get(0), "counter"));
    assertTrue(e.getMessage().contains("Evil.class is not signed"), e.getMessage());
  }

  @Test
  void aModuleSignedBySomeoneElseIsRefused() throws Exception {
    byte[] byAlice =
        new ModuleSigner(pki.privateKey("alice"), List.of(pki.certificate("alice")))
            .module(PacketCounter.class.getName(), tmp);
    var e =
        assertThrows(
            ModuleLoader.RejectedModuleException.class,
            () -> ModuleLoader.load(byAlice, pki.serverChain().get(0), "counter"));
    assertTrue(e.getMessage().contains("not signed by the Code Server"), e.getMessage());
  }

  @Test
  void garbageIsRefusedNotThrown() {
    assertThrows(
        ModuleLoader.RejectedModuleException.class,
        () -> ModuleLoader.load(new byte[] {1, 2, 3}, pki.serverChain().get(0), "x"));
  }
}
