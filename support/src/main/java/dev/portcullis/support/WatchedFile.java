package dev.portcullis.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A policy file a server reloads when it changes (the PDP's client types and tunnel policy):
 * changed means its bytes differ from those last looked at (not its modification time, which a
 * quick rewrite can leave as it was), and a version that was refused counts as seen, so it is tried
 * once. Thread-safe.
 */
public final class WatchedFile {
  private final Path file;
  private byte[] seen; // the bytes when last looked at (null: unreadable)

  public WatchedFile(Path file) {
    this.file = file;
    this.seen = read();
  }

  public Path path() {
    return file;
  }

  /** The file's bytes now, taken as seen; null if it cannot be read. */
  public synchronized byte[] take() {
    seen = read();
    return seen;
  }

  /** True if the bytes differ from those last looked at (and they are now). */
  public synchronized boolean changed() {
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
