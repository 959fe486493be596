package dev.portcullis.state;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.support.ConfigException;
import dev.portcullis.support.ConfigFiles;
import dev.portcullis.support.OwnedFile;
import dev.portcullis.support.XmlConfigReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * A server's {@code <state>} element: which store holds what the fleet shares. Reference:
 * docs/fleet.md.
 *
 * <pre>{@code
 * <state store="embedded" file="state.bin"/>
 * <state store="zookeeper" connect="zk1:2181,zk2:2181,zk3:2181" namespace="/portcullis/lab"
 *        session-timeout="PT10S" auth-file="zk-identity.secret"/>
 * }</pre>
 *
 * @param zookeeper true for ZooKeeper, false for the embedded store
 * @param file the embedded store's file, or null to keep it in memory
 * @param connect the ensemble, {@code host:port,...}
 * @param namespace the fleet's root in the ensemble
 * @param sessionTimeout how long the ensemble keeps a silent member's leases
 * @param authFile the file holding {@code user:password}, ZooKeeper's digest identity
 * @param kekFile the key-encryption key wrapping the secrets this server puts in the store (a file
 *     of 32 random bytes, hex or raw), or null where it stores none
 * @param where the config file and line, for messages
 */
public record StateConfig(
    boolean zookeeper,
    Path file,
    String connect,
    String namespace,
    Duration sessionTimeout,
    Path authFile,
    Path kekFile,
    String where) {

  /** Reads {@code <state>} ({@code null}: no element, no store). */
  public static StateConfig parse(Element e, Path dir) throws ConfigException {
    if (e == null) {
      return null;
    }
    String where = XmlConfigReader.value(e, "store");
    String at = "line " + XmlConfigReader.line(e);
    if (where.equals("embedded")) {
      String f = attr(e, "file", "");
      return new StateConfig(
          false, f.isEmpty() ? null : dir.resolve(f), null, null, null, null, kek(e, dir), at);
    }
    if (!where.equals("zookeeper")) {
      throw error(e, "store", "store " + where + " (expected: embedded or zookeeper)");
    }
    String connect = attr(e, "connect", "");
    if (!connect.matches("[A-Za-z0-9.\\-\\[\\]:]+(,[A-Za-z0-9.\\-\\[\\]:]+)*")) {
      throw error(e, "connect", "connect " + connect + " (expected: host:port,host:port,...)");
    }
    String ns = attr(e, "namespace", "");
    try {
      StorePaths.check(ns);
    } catch (IllegalArgumentException x) {
      throw error(e, "namespace", x.getMessage() + " (expected: e.g. /portcullis/lab)");
    }
    if (ns.equals("/")) {
      throw error(e, "namespace", "namespace /: a fleet needs its own (e.g. /portcullis/lab)");
    }
    Duration timeout = XmlConfigReader.duration(e, "session-timeout", Duration.ofSeconds(10));
    if (timeout.compareTo(Duration.ofSeconds(2)) < 0
        || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
      throw error(e, "session-timeout", "session-timeout " + timeout + " (expected: PT2S to PT5M)");
    }
    Path auth = ConfigFiles.existingFile(e, "auth-file", dir);
    return new StateConfig(true, null, connect, ns, timeout, auth, kek(e, dir), at);
  }

  private static Path kek(Element e, Path dir) throws ConfigException {
    return e.hasAttribute("kek-file") ? ConfigFiles.existingFile(e, "kek-file", dir) : null;
  }

  /**
   * The key-encryption key: 32 bytes, the file holding them raw or as 64 hex digits (a trailing
   * newline allowed). Never echoed.
   *
   * @throws StoreException naming the file when it holds anything else
   */
  public byte[] kek() throws StoreException {
    if (kekFile == null) {
      throw new StoreException(where + ": <state> has no kek-file, and secrets are stored");
    }
    ownerOnly(kekFile, "kek-file");
    byte[] b;
    try {
      b = Files.readAllBytes(kekFile);
    } catch (IOException e) {
      throw new StoreException("kek-file " + kekFile + ": cannot be read: " + e.getMessage());
    }
    if (b.length == 32) {
      return b;
    }
    String s = new String(b, StandardCharsets.US_ASCII).trim();
    Arrays.fill(b, (byte) 0);
    if (s.matches("[0-9a-fA-F]{64}")) {
      return HexFormat.of().parseHex(s);
    }
    throw new StoreException(
        "kek-file "
            + kekFile
            + ": expected 32 random bytes, raw or as 64 hex digits (content not shown)");
  }

  /**
   * Opens the store this configuration names.
   *
   * @throws StoreException if it cannot be opened or reached, with the reason
   */
  public StateStore open() throws StoreException {
    if (!zookeeper) {
      return file == null ? EmbeddedStateStore.inMemory() : EmbeddedStateStore.open(file);
    }
    return ZooKeeperStateStore.connect(
        new ZooKeeperStateStore.Settings(connect, namespace, sessionTimeout, identity()));
  }

  /**
   * Refuses a secret file that others than its owner may read or write, as ssh refuses such a
   * private key: a key-encryption key or store password readable by the group is not a secret.
   */
  static void ownerOnly(Path f, String what) throws StoreException {
    if (!OwnedFile.posix()) {
      return;
    }
    Set<PosixFilePermission> p;
    try {
      p = Files.getPosixFilePermissions(f);
    } catch (IOException e) {
      throw new StoreException(what + " " + f + ": cannot be read: " + e.getMessage());
    }
    for (PosixFilePermission x : p) {
      if (x.name().startsWith("GROUP_") || x.name().startsWith("OTHERS_")) {
        throw new StoreException(
            what
                + " "
                + f
                + " is open to others ("
                + PosixFilePermissions.toString(p)
                + "): it holds a secret; make it owner-only (chmod 600)");
      }
    }
  }

  /** The digest identity, {@code user:password}, from the auth file (never echoed). */
  private String identity() throws StoreException {
    ownerOnly(authFile, "auth-file");
    String s;
    try {
      s = Files.readString(authFile, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new StoreException("auth-file " + authFile + ": cannot be read: " + e.getMessage());
    }
    int colon = s.indexOf(':');
    if (colon < 1 || colon == s.length() - 1 || s.indexOf('\n') >= 0) {
      throw new StoreException(
          "auth-file " + authFile + ": expected one line user:password (content not shown)");
    }
    return s;
  }
}
