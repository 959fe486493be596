package dev.portcullis.pdp.enrol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.integrity.IntegrityKeys;
import dev.portcullis.crypto.Digester;
import dev.portcullis.crypto.algorithm.Algorithm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CredentialStoreTest {
  private static final Digester SHA256 =
      IntegrityKeys.registry(List.of()).digester(Algorithm.SHA_256);

  @TempDir Path dir;

  @Test
  void aCredentialIsUsedExactlyOnceEvenWhenEightThreadsRace() throws Exception {
    CredentialStore store = CredentialStore.open(dir, SHA256);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 20; round++) {
        String id = store.issue("gw-1", Duration.ofHours(1)).id();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> f = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          // Separate store objects, as separate processes would have.
          CredentialStore own = CredentialStore.open(dir, SHA256);
          Callable<Boolean> c =
              () -> {
                go.await();
                return own.consume(id);
              };
          f.add(pool.submit(c));
        }
        go.countDown();
        int won = 0;
        for (Future<Boolean> x : f) {
          won += x.get(10, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertEquals(1, won, "round " + round);
        assertEquals(CredentialStore.State.USED, store.state(id));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aUseSurvivesACrashRightAfterIt() throws Exception {
    CredentialStore before = CredentialStore.open(dir, SHA256);
    CredentialStore.Issued i = before.issue("gw-1", Duration.ofHours(1));
    assertTrue(before.consume(i.id()));
    // What a PDP restarted after a crash between marking and issuing sees: a used credential.
    CredentialStore after = CredentialStore.open(dir, SHA256);
    assertEquals(CredentialStore.State.USED, after.state(i.id()));
    assertFalse(after.consume(i.id()));
    assertEquals("gw-1", after.lookup(i.id()).pepId());
  }

  @Test
  void aCredentialCarriesOneTunnelAcrossRestarts() throws Exception {
    CredentialStore before = CredentialStore.open(dir, SHA256);
    CredentialStore.Issued i = before.issue("alice", Duration.ofHours(1));
    assertTrue(before.consume(i.id()));
    assertFalse(before.carriedTunnel(i.id()));
    assertTrue(before.spendOnTunnel(i.id(), "t-1"));
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(dir.resolve("tunnels").resolve(i.id()))),
        "the spent mark is owner-only like every file of the store, whatever the umask");
    assertTrue(before.carriedTunnel(i.id()));
    assertFalse(before.spendOnTunnel(i.id(), "t-2"), "one tunnel per credential");
    CredentialStore after = CredentialStore.open(dir, SHA256); // a PDP restarted
    assertTrue(after.carriedTunnel(i.id()));
    assertFalse(after.spendOnTunnel(i.id(), "t-3"), "still spent after a restart");
    assertFalse(after.spendOnTunnel("../valid/x", "t-4"), "only credential ids are names");
  }

  @Test
  void theStoreHoldsNoSecretAndOnlyItsOwnerReadsIt() throws Exception {
    CredentialStore store = CredentialStore.open(dir, SHA256);
    CredentialStore.Issued i = store.issue("gw-1", Duration.ofHours(1));
    String[] parts = CredentialStore.parseToken(i.token());
    byte[] secret = Base64.getUrlDecoder().decode(parts[1]);
    assertEquals(32, secret.length);
    Path file = dir.resolve("valid").resolve(i.id() + ".json");
    String stored = Files.readString(file);
    assertFalse(stored.contains(parts[1]), stored);
    assertFalse(stored.contains(HexFormat.of().formatHex(secret)), stored);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    CredentialStore.Credential c = store.lookup(i.id());
    assertTrue(store.secretMatches(c, secret));
    secret[0] ^= 1;
    assertFalse(store.secretMatches(c, secret));
  }

  @Test
  void namesThatAreNotCredentialIdsAreNeverLookedUp() throws Exception {
    CredentialStore store = CredentialStore.open(dir, SHA256);
    assertNull(store.lookup("../../etc/passwd"));
    assertEquals(CredentialStore.State.UNKNOWN, store.state("otc-0000000000000000"));
    assertFalse(store.consume("../valid/x"));
    assertNull(CredentialStore.parseToken("no-dot-here"));
  }

  /** docs/security.md, principle 9: a store directory that is a link is refused, left alone. */
  @Test
  void aStoreDirectoryThatIsALinkIsRefused() throws Exception {
    Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
    Path link = Files.createSymbolicLink(dir.resolve("credentials"), elsewhere);
    IOException e = assertThrows(IOException.class, () -> CredentialStore.open(link, SHA256));
    assertTrue(e.getMessage().contains("symbolic link"), e.getMessage());
    try (var files = Files.list(elsewhere)) {
      assertEquals(0, files.count(), "nothing made through the link");
    }
  }
}
