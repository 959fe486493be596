package dev.portcullis.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.support.LinkAttacks;
import dev.portcullis.support.LogLines;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;
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

  /**
   * A damaged store is refused with the byte and the field, never read into an array its lengths
   * ask for: a data length of 2^31-1 used to give OutOfMemoryError ("Requested array size exceeds
   * VM limit"), a file cut inside its checksum the reason "null".
   */
  @Test
  void aDamagedStoreIsRefusedWithTheByteAndTheFieldNeverWithAnError() throws Exception {
    Path f = dir.resolve("store.bin");
    try (StateStore s = EmbeddedStateStore.open(f)) {
      s.create("/sessions/alice", b("SECRET"), Lifetime.DURABLE);
      s.create("/sessions/bob", b("TOP SECRET"), Lifetime.DURABLE);
    }
    byte[] good = Files.readAllBytes(f);
    // alice's entry's data length: after its path and version
    int dataLength =
        new String(good, StandardCharsets.ISO_8859_1).indexOf("/sessions/alice")
            + "/sessions/alice".length()
            + 4;
    for (int flip = 0; flip < good.length; flip++) {
      byte[] bad = good.clone();
      bad[flip] ^= (byte) 0x80; // each byte's high bit, the checksum's included
      Files.write(f, bad);
      StoreException e = assertThrows(StoreException.class, () -> EmbeddedStateStore.open(f));
      assertTrue(e.getMessage().contains("byte"), "byte " + flip + ": " + e.getMessage());
    }
    for (int cut = 1; cut < good.length; cut++) {
      Files.write(f, Arrays.copyOf(good, cut));
      StoreException e = assertThrows(StoreException.class, () -> EmbeddedStateStore.open(f));
      assertFalse(e.getMessage().contains("null"), "cut at " + cut + ": " + e.getMessage());
    }
    // a length of 2^31-1 with a checksum that matches: the lengths are checked on their own too
    byte[] huge = good.clone();
    ByteBuffer.wrap(huge).putInt(dataLength, Integer.MAX_VALUE);
    CRC32 crc = new CRC32();
    crc.update(huge, 0, huge.length - 8);
    ByteBuffer.wrap(huge).putLong(huge.length - 8, crc.getValue());
    Files.write(f, huge);
    StoreException e = assertThrows(StoreException.class, () -> EmbeddedStateStore.open(f));
    assertTrue(
        e.getMessage().contains("byte " + dataLength + " (entry 1): data length 2147483647"),
        e.getMessage());
    Files.write(f, good);
    try (StateStore s = EmbeddedStateStore.open(f)) {
      assertEquals("SECRET", new String(s.read("/sessions/alice").orElseThrow().data()));
    }
  }

  @Test
  void anEmptyFileIsANewStoreAndTheLogSaysSo() throws Exception {
    Path f = dir.resolve("empty.bin");
    Files.write(f, new byte[0]);
    try (LogLines log = LogLines.of(EmbeddedStateStore.class);
        StateStore s = EmbeddedStateStore.open(f)) {
      assertTrue(s.read("/a").isEmpty());
      assertTrue(
          log.warnings().stream().anyMatch(l -> l.contains("is empty (0 bytes)")),
          log.lines().toString());
    }
  }
}
