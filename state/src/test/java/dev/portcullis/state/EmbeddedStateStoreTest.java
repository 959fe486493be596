package dev.portcullis.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.support.LinkAttacks;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStateStoreTest extends StateStoreContract {
  @TempDir Path dir;
  private int n;

  @Override
  StateStore store() throws Exception {
    return EmbeddedStateStore.open(dir.resolve("state-" + (n++) + ".bin"));
  }

  @Override
  StateStore peer(StateStore of) {
    return of; // one process holds the state
  }

  @Test
  void durableEntriesSurviveAReopenAndLeasedOnesDoNot() throws Exception {
    Path f = dir.resolve("kept.bin");
    try (StateStore s = EmbeddedStateStore.open(f)) {
      s.create("/policy/version", b("7"), Lifetime.DURABLE);
      s.replace("/policy/version", b("8"), 0);
      s.create("/members/me", b("x"), Lifetime.LEASED);
    }
    try (StateStore s = EmbeddedStateStore.open(f)) {
      Versioned v = s.read("/policy/version").orElseThrow();
      assertArrayEquals(b("8"), v.data());
      assertEquals(1, v.version(), "versions survive too");
      assertTrue(s.read("/members/me").isEmpty());
    }
  }

  @Test
  void aSecondOwnerAndADamagedFileAreRefusedWithTheReason() throws Exception {
    Path f = dir.resolve("owned.bin");
    try (StateStore s = EmbeddedStateStore.open(f)) {
      s.create("/a", b("1"), Lifetime.DURABLE);
      StoreException e = assertThrows(StoreException.class, () -> EmbeddedStateStore.open(f));
      assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    }
    byte[] good = Files.readAllBytes(f);
    good[good.length - 10] ^= 1;
    Files.write(f, good);
    StoreException e = assertThrows(StoreException.class, () -> EmbeddedStateStore.open(f));
    assertTrue(e.getMessage().contains("byte"), e.getMessage());
    Files.write(f, "not a store at all".getBytes());
    e = assertThrows(StoreException.class, () -> EmbeddedStateStore.open(f));
    assertTrue(e.getMessage().contains("magic"), e.getMessage());
  }

  /** docs/security.md, principle 9: no link is followed, no file of someone else's changed. */
  @Test
  void aStorePathThatIsALinkIsRefused() throws Exception {
    LinkAttacks.refused(dir, "state.bin", f -> EmbeddedStateStore.open(f).close());
  }
}
