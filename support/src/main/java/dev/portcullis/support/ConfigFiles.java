package dev.portcullis.support;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.error;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.w3c.dom.Element;

/**
 * The files a configuration names, checked at the attribute that names them (file:line): files that
 * must exist and be readable, PEM files, and files a server will create or append to.
 */
public final class ConfigFiles {
  private ConfigFiles() {}

  /**
   * A file an attribute names, resolved against {@code dir}, that must exist and be readable: a
   * missing one is reported at the attribute that names it (file:line), not later by whoever opens
   * it. Null if the element (an optional one) or the attribute is absent, or the value blank.
   */
  public static Path existingFile(Element e, String name, Path dir) throws ConfigException {
    if (e == null) {
      return null; // an optional element that is not there
    }
    String v = attr(e, name, null);
    if (v == null || v.isBlank()) {
      return null;
    }
    Path p = dir.resolve(v.trim()).normalize();
    if (!Files.exists(p)) {
      throw error(e, name, name + ": " + p + " does not exist");
    }
    if (!Files.isRegularFile(p)) {
      throw error(e, name, name + ": " + p + " is not a file");
    }
    if (!Files.isReadable(p)) {
      throw error(e, name, name + ": " + p + " cannot be read (permissions)");
    }
    return p;
  }

  /**
   * A file a server will create or append to (an audit log), resolved against {@code dir}: checked
   * at the attribute that names it without creating anything, so that a directory that cannot be
   * made is a configuration error (file:line), not an I/O failure at start. Its directory must be a
   * directory, or be creatable: its nearest existing ancestor a writable directory. Null if the
   * element (an optional one) is absent.
   */
  public static Path writableFile(Element e, String name, Path dir) throws ConfigException {
    if (e == null) {
      return null;
    }
    String v = attr(e, name, "");
    if (v.isBlank()) {
      throw error(e, name, name + ": empty (expected: a file path)");
    }
    Path p = dir.resolve(v.trim()).toAbsolutePath().normalize();
    if (Files.isDirectory(p)) {
      throw error(e, name, name + ": " + p + " is a directory, not a file");
    }
    Path parent = p.getParent();
    Path existing = parent;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null || !Files.isDirectory(existing)) {
      throw error(
          e,
          name,
          name
              + ": its directory "
              + parent
              + " cannot be created: "
              + existing
              + " is a file, not a directory");
    }
    if (!Files.isWritable(existing)) {
      throw error(
          e,
          name,
          name
              + ": "
              + (existing.equals(parent)
                  ? "its directory " + parent + " is not writable by this user"
                  : "its directory "
                      + parent
                      + " cannot be created: "
                      + existing
                      + " is not writable by this user"));
    }
    return p;
  }

  /**
   * As {@link #existingFile}, for a PEM file (certificates, keys): it must hold a {@code
   * -----BEGIN} block.
   */
  public static Path pemFile(Element e, String name, Path dir) throws ConfigException {
    Path p = existingFile(e, name, dir);
    if (p == null) {
      return null;
    }
    try {
      String text = Files.readString(p, StandardCharsets.ISO_8859_1);
      if (!text.contains("-----BEGIN ")) {
        throw error(e, name, name + ": " + p + " is not PEM (no -----BEGIN line)");
      }
    } catch (IOException x) {
      throw error(e, name, name + ": " + p + " cannot be read: " + x.getMessage());
    }
    return p;
  }
}
