package dev.portcullis.pdp.enrol;

import dev.portcullis.pdp.enrol.CredentialStore.State;
import dev.portcullis.state.StateStore;
import dev.portcullis.state.StateStore.Lifetime;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.Versioned;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.OwnedFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Where credential records are kept, and how one is used exactly once. */
interface CredentialLedger {
  void write(String id, byte[] record) throws IOException;

  /** The record, valid or used, or null. */
  byte[] read(String id) throws IOException;

  State state(String id) throws IOException;

  /** Valid to used, once; durable when true. */
  boolean consume(String id) throws IOException;

  /**
   * Marks a used credential as having carried its one tunnel (the dynamic VPN tunnels paper's
   * one-time key pair spent): true if this call marked it (durably), false if it was marked before.
   */
  boolean spendOnTunnel(String id, String tunnel) throws IOException;

  /** Whether a used credential carried its tunnel (a hint: {@link #spendOnTunnel} decides). */
  boolean carriedTunnel(String id) throws IOException;

  /**
   * Files: {@code valid/ID.json}, renamed atomically to {@code used/ID.json}; a credential that
   * carried a tunnel gets {@code tunnels/ID} (created exclusively, holding the tunnel's id).
   */
  record InFiles(Path valid, Path used) implements CredentialLedger {
    @Override
    public boolean spendOnTunnel(String id, String tunnel) throws IOException {
      Path dir = used.resolveSibling("tunnels");
      OwnedFile.privateDirectory(dir, "credential store directory");
      if (!DurableFiles.createNew(
          dir.resolve(id), tunnel.getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
        return false;
      }
      DurableFiles.forceDirectory(dir);
      return true;
    }

    @Override
    public boolean carriedTunnel(String id) {
      return Files.exists(
          used.resolveSibling("tunnels").resolve(id), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public void write(String id, byte[] record) throws IOException {
      DurableFiles.write(valid.resolve(id + ".json"), record);
    }

    @Override
    public byte[] read(String id) throws IOException {
      for (Path d : new Path[] {valid, used}) {
        try {
          return Files.readAllBytes(d.resolve(id + ".json"));
        } catch (NoSuchFileException e) {
          // look in the other directory
        }
      }
      return null;
    }

    @Override
    public State state(String id) {
      if (Files.exists(used.resolve(id + ".json"))) {
        return State.USED;
      }
      return Files.exists(valid.resolve(id + ".json")) ? State.VALID : State.UNKNOWN;
    }

    @Override
    public boolean consume(String id) throws IOException {
      try {
        Files.move(
            valid.resolve(id + ".json"),
            used.resolve(id + ".json"),
            StandardCopyOption.ATOMIC_MOVE);
      } catch (NoSuchFileException e) {
        return false;
      }
      DurableFiles.forceDirectory(used);
      DurableFiles.forceDirectory(valid);
      return true;
    }
  }

  /**
   * A fleet's store: {@code /enrolment/issued/ID}, and {@code /enrolment/used/ID} created by
   * exactly one PDP (the store's consensus decides), durable on a quorum before the PDP issues
   * anything. The record holds the secret's SHA-256, never the secret: reading the store does not
   * let one enrol.
   */
  record InFleet(StateStore store) implements CredentialLedger {
    @Override
    public boolean carriedTunnel(String id) throws IOException {
      try {
        return store.read("/enrolment/tunnel/" + id).isPresent();
      } catch (StoreException e) {
        throw new IOException(e.getMessage(), e);
      }
    }

    private static String issued(String id) {
      return "/enrolment/issued/" + id;
    }

    private static String used(String id) {
      return "/enrolment/used/" + id;
    }

    @Override
    public boolean spendOnTunnel(String id, String tunnel) throws IOException {
      try {
        return store.create(
            "/enrolment/tunnel/" + id,
            tunnel.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            Lifetime.DURABLE);
      } catch (StoreException e) {
        throw new IOException(e.getMessage(), e);
      }
    }

    @Override
    public void write(String id, byte[] record) throws IOException {
      try {
        if (!store.create(issued(id), record, Lifetime.DURABLE)) {
          throw new IOException("credential " + id + " exists already in " + store.describe());
        }
      } catch (StoreException e) {
        throw new IOException(e.getMessage(), e);
      }
    }

    @Override
    public byte[] read(String id) throws IOException {
      try {
        return store.readLatest(issued(id)).map(Versioned::data).orElse(null);
      } catch (StoreException e) {
        throw new IOException(e.getMessage(), e);
      }
    }

    @Override
    public State state(String id) throws IOException {
      try {
        if (store.readLatest(used(id)).isPresent()) {
          return State.USED;
        }
        return store.read(issued(id)).isPresent() ? State.VALID : State.UNKNOWN;
      } catch (StoreException e) {
        throw new IOException(e.getMessage(), e);
      }
    }

    @Override
    public boolean consume(String id) throws IOException {
      try {
        return store.readLatest(issued(id)).isPresent()
            && store.create(used(id), new byte[0], Lifetime.DURABLE);
      } catch (StoreException e) {
        throw new IOException(e.getMessage(), e);
      }
    }
  }
}
