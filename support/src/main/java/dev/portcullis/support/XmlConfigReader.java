package dev.portcullis.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URL;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Reads an XML configuration file, validates it against a schema shipped in a jar, and returns a
 * DOM whose elements remember the file, line and column they came from, so that the code walking it
 * can report semantic errors in the same one-line shape as schema errors: {@code pdp.xml:12:40:
 * element <listen>, attribute 'port': ...}.
 *
 * <p>DOCTYPE declarations and external entities are refused. Thread-safe; the schema is compiled
 * once.
 */
public final class XmlConfigReader {
  static final String LINE = "portcullis.line";
  static final String COLUMN = "portcullis.column";
  static final String SOURCE = "portcullis.source";
  private static final String PATH = "portcullis.path"; // of an element made by orDefaults

  private static final Pattern ELEMENT = Pattern.compile("element ['\"]([^'\"]+)['\"]");
  private static final Pattern ATTRIBUTE = Pattern.compile("[Aa]ttribute ['\"]([^'\"]+)['\"]");
  private static final Pattern CVC_CODE = Pattern.compile("^cvc-[a-zA-Z0-9.\\-]+: ");

  private final Schema schema;
  private final String schemaName;
  private final ConfigSchema definition;

  private XmlConfigReader(Schema schema, String schemaName, ConfigSchema definition) {
    this.schema = schema;
    this.schemaName = schemaName;
    this.definition = definition;
  }

  /** A reader for the schema at {@code resource}, found next to {@code anchor}'s class. */
  public static XmlConfigReader forSchema(Class<?> anchor, String resource) {
    URL url = anchor.getResource(resource);
    if (url == null) {
      throw new IllegalStateException("schema missing from the jar: " + resource);
    }
    try {
      SchemaFactory sf = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
      return new XmlConfigReader(sf.newSchema(url), resource, ConfigSchema.load(anchor, resource));
    } catch (SAXException e) {
      throw new IllegalStateException("shipped schema does not load: " + resource, e);
    }
  }

  /** Reads and validates a file; returns its root element. */
  public Element read(Path file) throws ConfigException {
    String name = file.toString();
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, name);
    } catch (NoSuchFileException e) {
      throw new ConfigException(name, "file not found", null);
    } catch (IOException e) {
      throw new ConfigException(name, "cannot read: " + e.getMessage(), e);
    }
  }

  /** Reads and validates a stream; {@code source} names it in errors. */
  public Element read(InputStream in, String source) throws ConfigException {
    LocatedDom b = new LocatedDom(source);
    try {
      newParser().parse(in, b);
      b.flush();
    } catch (LocatedDom.Abort e) {
      throw e.error;
    } catch (SAXParseException e) {
      ConfigException pending = b.pending();
      throw pending != null ? pending : describe(source, List.of(e), b.current());
    } catch (SAXException e) {
      throw new ConfigException(source, "not a valid configuration: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new ConfigException(source, "cannot read: " + e.getMessage(), e);
    }
    return b.doc.getDocumentElement();
  }

  private SAXParser newParser() throws SAXException {
    SAXParserFactory f = SAXParserFactory.newInstance();
    f.setNamespaceAware(true);
    f.setSchema(schema);
    try {
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      f.setFeature("http://xml.org/sax/features/external-general-entities", false);
      f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
      return f.newSAXParser();
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("the JDK's XML parser lacks a required feature", e);
    }
  }

  @Override
  public String toString() {
    return "XmlConfigReader[" + schemaName + "]";
  }

  // ---- errors -----------------------------------------------------------------------------------

  /**
   * One clear error from a group of schema messages about the same spot: the first message's text
   * and position, the element and attribute named by any of them (a bad attribute value yields a
   * type message, then an attribute message).
   */
  public static ConfigException describe(
      String source, List<SAXParseException> group, String fallbackElement) {
    SAXParseException first = group.get(0);
    String element = null;
    String attribute = null;
    for (SAXParseException e : group) {
      String m = String.valueOf(e.getMessage());
      Matcher em = ELEMENT.matcher(m);
      if (element == null && em.find()) {
        element = em.group(1);
      }
      Matcher am = ATTRIBUTE.matcher(m);
      if (attribute == null && am.find()) {
        attribute = am.group(1);
      }
    }
    if (element == null) {
      element = fallbackElement;
    }
    String problem = CVC_CODE.matcher(String.valueOf(first.getMessage())).replaceFirst("");
    return new ConfigException(
        source, first.getLineNumber(), first.getColumnNumber(), element, attribute, problem, first);
  }

  /** An error about an element (and optionally one of its attributes) of a read document. */
  public static ConfigException error(Element e, String attribute, String problem) {
    return new ConfigException(
        (String) e.getUserData(SOURCE),
        line(e),
        (Integer) e.getUserData(COLUMN),
        e.getLocalName() != null ? e.getLocalName() : e.getTagName(),
        attribute,
        problem,
        null);
  }

  /** The schema this reader validates by: elements, attributes, defaults, documentation. */
  public ConfigSchema schema() {
    return definition;
  }

  /**
   * The child {@code name} of {@code parent} if the file has it; else one made from the schema,
   * with the defaults of its attributes (and {@code parent}'s line, for errors): an optional
   * element that is absent reads as if it were there and empty, so its defaults are written once,
   * in the schema, and never again in Java.
   */
  public Element orDefaults(Element parent, String name) {
    Element there = child(parent, name);
    if (there != null) {
      return there;
    }
    Element made = parent.getOwnerDocument().createElementNS(parent.getNamespaceURI(), name);
    String path = path(parent) + "/" + name;
    definition.defaults(path).forEach(made::setAttribute);
    made.setUserData(PATH, path, null);
    for (String key : new String[] {LINE, COLUMN, SOURCE}) {
      made.setUserData(key, parent.getUserData(key), null);
    }
    return made;
  }

  /** {@code pdp/limits}: the element names from the root down to {@code e}. */
  private static String path(Element e) {
    if (e.getUserData(PATH) instanceof String made) {
      return made;
    }
    StringBuilder b = new StringBuilder(local(e));
    for (Node n = e.getParentNode(); n instanceof Element p; n = p.getParentNode()) {
      b.insert(0, local(p) + "/");
    }
    return b.toString();
  }

  private static String local(Element e) {
    return e.getLocalName() == null ? e.getTagName() : e.getLocalName();
  }

  /** The line an element's start tag ends on. */
  public static int line(Element e) {
    Object l = e.getUserData(LINE);
    return l == null ? -1 : (Integer) l;
  }

  // ---- walking helpers --------------------------------------------------------------------------

  /** The child elements of {@code parent}, optionally only those named {@code name}. */
  public static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element && (name == null || name.equals(((Element) n).getLocalName()))) {
        out.add((Element) n);
      }
    }
    return out;
  }

  /** The single child named {@code name}, or null. */
  public static Element child(Element parent, String name) {
    List<Element> l = children(parent, name);
    return l.isEmpty() ? null : l.get(0);
  }

  /**
   * An attribute the schema gives a default to (so it is there: filled in by validation, or by
   * {@link #orDefaults}); its default is written only in the schema.
   */
  public static String value(Element e, String name) {
    if (!e.hasAttribute(name)) {
      throw new IllegalStateException(
          "<" + local(e) + "> has no " + name + " and its schema gives it no default");
    }
    return e.getAttribute(name);
  }

  /** {@link #value} as a boolean. */
  public static boolean bool(Element e, String name) {
    String v = value(e, name).trim();
    return "true".equals(v) || "1".equals(v);
  }

  /**
   * {@link #value} as an integer within bounds, as {@link #integer(Element, String, int, int,
   * int)}.
   */
  public static int integer(Element e, String name, int min, int max) throws ConfigException {
    value(e, name);
    return integer(e, name, 0, min, max);
  }

  /** {@link #value} as a duration, as {@link #duration(Element, String, Duration)}. */
  public static Duration duration(Element e, String name) throws ConfigException {
    value(e, name);
    return duration(e, name, null);
  }

  /** The default the schema gives {@code attribute} of the element at {@code path}. */
  public String defaultOf(String path, String attribute) {
    String d = definition.defaults(path).get(attribute);
    if (d == null) {
      throw new IllegalStateException(
          schemaName + " gives " + path + "/@" + attribute + " no default");
    }
    return d;
  }

  /** An attribute's value, or {@code dflt} if absent (the schema fills in its own defaults). */
  public static String attr(Element e, String name, String dflt) {
    return e.hasAttribute(name) ? e.getAttribute(name) : dflt;
  }

  public static boolean bool(Element e, String name, boolean dflt) {
    String v = attr(e, name, null);
    return v == null ? dflt : "true".equals(v.trim()) || "1".equals(v.trim());
  }

  /** An integer attribute in decimal or {@code 0x} hex, within bounds. */
  public static int integer(Element e, String name, int dflt, int min, int max)
      throws ConfigException {
    String v = attr(e, name, null);
    if (v == null) {
      return dflt;
    }
    try {
      String t = v.trim();
      long n =
          t.startsWith("0x") || t.startsWith("0X")
              ? Long.parseLong(t.substring(2), 16)
              : Long.parseLong(t);
      if (n < min || n > max) {
        throw error(e, name, name + ": " + v + " (expected: " + min + " to " + max + ")");
      }
      return (int) n;
    } catch (NumberFormatException x) {
      throw error(e, name, name + ": " + v + " (expected: a number, decimal or 0x hex)");
    }
  }

  /**
   * A socket address attribute written {@code 127.0.0.1:9464} or {@code [::1]:9464}: a literal
   * address (no name lookups in a config) and a port; {@code dflt} when absent.
   */
  public static InetSocketAddress socketAddress(Element e, String name, InetSocketAddress dflt)
      throws ConfigException {
    String v = attr(e, name, null);
    return v == null ? dflt : socketAddress(e, name, v, v);
  }

  /**
   * A socket address attribute whose port may be left out ({@code 192.0.2.1}, {@code [2001:db8::1]}
   * or {@code 2001:db8::1} for {@code defaultPort}; {@code 192.0.2.1:3919} for another).
   */
  public static InetSocketAddress socketAddress(Element e, String name, int defaultPort)
      throws ConfigException {
    String v = value(e, name).trim();
    boolean hasPort =
        v.startsWith("[")
            ? v.contains("]:")
            : v.indexOf(':') >= 0 && v.indexOf(':') == v.lastIndexOf(':');
    String full =
        hasPort
            ? v
            : (v.contains(":") && !v.startsWith("[") ? "[" + v + "]" : v) + ":" + defaultPort;
    return socketAddress(e, name, v, full);
  }

  private static InetSocketAddress socketAddress(Element e, String name, String v, String full)
      throws ConfigException {
    String host;
    int port;
    try {
      InetSocketAddress u = HostPort.parse(full);
      host = u.getHostString();
      port = u.getPort();
    } catch (IllegalArgumentException x) {
      host = "";
      port = -1;
    }
    if (!host.matches("[0-9A-Fa-f:.]+") || port < 0) {
      throw error(
          e,
          name,
          name + " " + v + " (expected: a literal address and a port, e.g. 127.0.0.1:8080)");
    }
    try {
      return new InetSocketAddress(InetAddress.getByName(host), port);
    } catch (UnknownHostException x) {
      throw error(e, name, name + " " + v + ": not an address");
    }
  }

  /**
   * A duration attribute ({@link Durations}: {@code PT30S} or {@code 30s}, no years or months), as
   * a positive-or-zero duration.
   */
  public static Duration duration(Element e, String name, Duration dflt) throws ConfigException {
    String v = attr(e, name, null);
    if (v == null) {
      return dflt;
    }
    try {
      return Durations.parse(v);
    } catch (IllegalArgumentException x) {
      throw error(e, name, name + ": " + v + " (expected: " + Durations.EXPECTED + ")");
    }
  }
}
