package dev.portcullis.pdp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A policy file the PDP reloads when it changes: changed means its bytes differ from those last
 * looked at (not its modification time, which a quick rewrite can leave as it was), and a version
 * that was refused counts as seen, so it is tried once. Thread-safe.
 */
final class WatchedFile {
  private final Path file;
  private byte[] seen; // the bytes when last looked at (null: unreadable)

  WatchedFile(Path file) {
    this.file = file;
    this.seen = read();
  }

  Path path() {
    return file;
  }

  /** The file's bytes now, taken as seen; null if it cannot be read. */
  synchronized byte[] take() {
    seen = read();
    return seen;
  }

  /** True if the bytes differ from those last looked at (and they are now). */
  synchronized boolean changed() {
    byte[] now = read();
    if (now == null || Arrays.equals(now, seen)) {
      return false;
    }
    seen = now;
    return true;
  }

  private byte[] read() {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      return null;
    }
  }
}
