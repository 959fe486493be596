package dev.portcullis.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * One of our configuration schemas (an XSD under a module's resources) read as the single
 * definition of its files (after Kafka's {@code ConfigDef}): which elements and attributes there
 * are, their types, which are required, their defaults and their documentation ({@code
 * xs:documentation}). The same XSD validates a file as it is read ({@link XmlConfigReader}), fills
 * in the defaults of the attributes of elements that are there, gives the defaults of those that
 * are not ({@link XmlConfigReader#orDefaults}), and writes the reference tables in {@code
 * docs/reference/} ({@link #markdown}), so a default is written once, in the schema.
 *
 * <p>It reads the subset of XML Schema our schemas use: global elements with anonymous or named
 * complex types, sequences, choices and {@code all}, attributes with built-in or named simple
 * types, enumerations.
 */
public final class ConfigSchema {
  private static final String XS = XMLConstants.W3C_XML_SCHEMA_NS_URI;

  /** An attribute: name, type as written, default (null: none), required, documentation. */
  public record Attribute(
      String name, String type, String defaultValue, boolean required, String doc) {}

  /** An element: its path from the root ({@code pdp/limits}), occurrence, documentation. */
  public record ElementDef(
      String path,
      String name,
      boolean optional,
      boolean repeated,
      String doc,
      List<Attribute> attributes,
      List<ElementDef> children) {}

  private final String resource;
  private final ElementDef root;
  private final Map<String, ElementDef> byPath = new HashMap<>();

  private ConfigSchema(String resource, ElementDef root) {
    this.resource = resource;
    this.root = root;
    index(root);
  }

  private void index(ElementDef e) {
    byPath.put(e.path(), e);
    e.children().forEach(this::index);
  }

  /** Reads the schema at {@code resource} (absolute, or relative to {@code anchor}'s package). */
  public static ConfigSchema load(Class<?> anchor, String resource) {
    URL url = anchor.getResource(resource);
    if (url == null) {
      throw new IllegalStateException("schema " + resource + " missing from the build");
    }
    try (InputStream in = url.openStream()) {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(true);
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      Element schema = f.newDocumentBuilder().parse(in).getDocumentElement();
      return new ConfigSchema(resource, new Reader(schema).root());
    } catch (IOException | SAXException | ParserConfigurationException e) {
      throw new IllegalStateException("schema " + resource + ": " + e.getMessage(), e);
    }
  }

  public String resource() {
    return resource;
  }

  public ElementDef root() {
    return root;
  }

  /** The element at {@code path} ({@code pdp/limits}), or null if the schema has none. */
  public ElementDef element(String path) {
    return byPath.get(path);
  }

  /** The defaults of the attributes of the element at {@code path}, by name, in schema order. */
  public Map<String, String> defaults(String path) {
    ElementDef e = byPath.get(path);
    if (e == null) {
      throw new IllegalArgumentException(resource + " has no element " + path);
    }
    Map<String, String> d = new LinkedHashMap<>();
    for (Attribute a : e.attributes()) {
      if (a.defaultValue() != null) {
        d.put(a.name(), a.defaultValue());
      }
    }
    return d;
  }

  /** Elements and attributes without documentation, as paths ({@code pdp/limits/@max-handles}). */
  public List<String> undocumented() {
    List<String> out = new ArrayList<>();
    undocumented(root, out);
    return out;
  }

  private static void undocumented(ElementDef e, List<String> out) {
    if (e.doc() == null) {
      out.add(e.path());
    }
    for (Attribute a : e.attributes()) {
      if (a.doc() == null) {
        out.add(e.path() + "/@" + a.name());
      }
    }
    e.children().forEach(c -> undocumented(c, out));
  }

  /**
   * The reference of the file this schema defines, in Markdown: one table per element, in document
   * order, with each attribute's type, default (or "required") and documentation.
   */
  public String markdown(String title) {
    StringBuilder b = new StringBuilder();
    b.append("# ").append(title).append("\n\n");
    b.append("<!-- Generated from ")
        .append(resource.startsWith("/") ? resource.substring(1) : resource)
        .append(
            " by ConfigSchema.markdown; do not edit: edit the schema's xs:documentation. -->\n");
    markdown(root, b);
    return b.toString();
  }

  private static void markdown(ElementDef e, StringBuilder b) {
    b.append("\n## `<").append(e.path().replace("/", "> <")).append(">`\n\n");
    b.append(e.optional() ? "Optional" : "Required")
        .append(e.repeated() ? ", repeated" : ", once")
        .append(". ")
        .append(cell(e.doc()))
        .append("\n");
    if (!e.attributes().isEmpty()) {
      b.append("\n| attribute | type | default | meaning |\n|---|---|---|---|\n");
      for (Attribute a : e.attributes()) {
        b.append("| `")
            .append(a.name())
            .append("` | ")
            .append(cell(a.type()))
            .append(" | ")
            .append(
                a.required()
                    ? "required"
                    : a.defaultValue() == null ? "none" : "`" + cell(a.defaultValue()) + "`")
            .append(" | ")
            .append(cell(a.doc()))
            .append(" |\n");
      }
    }
    e.children().forEach(c -> markdown(c, b));
  }

  private static String cell(String s) {
    return s == null
        ? ""
        : s.replaceAll("\\s+", " ")
            .trim()
            .replace("|", "\\|")
            .replace("<", "&lt;")
            .replace(">", "&gt;");
  }

  /** Walks the schema's DOM into {@link ElementDef}s. */
  private static final class Reader {
    private final Element schema;
    private final Map<String, Element> complexTypes = new HashMap<>();
    private final Map<String, Element> simpleTypes = new HashMap<>();
    private final Map<String, Element> globals = new LinkedHashMap<>();

    Reader(Element schema) {
      this.schema = schema;
      for (Element c : xs(schema)) {
        String name = c.getAttribute("name");
        switch (c.getLocalName()) {
          case "complexType" -> complexTypes.put(name, c);
          case "simpleType" -> simpleTypes.put(name, c);
          case "element" -> globals.put(name, c);
          default -> {}
        }
      }
    }

    ElementDef root() {
      if (globals.size() != 1) {
        throw new IllegalStateException(
            "a configuration schema declares one root element, not " + globals.keySet());
      }
      Element e = globals.values().iterator().next();
      return element(e, "", false, false, 0);
    }

    private ElementDef element(
        Element e, String parent, boolean optional, boolean repeated, int d) {
      if (d > 32) {
        throw new IllegalStateException("schema nests deeper than 32 elements (a recursive type?)");
      }
      String name = e.getAttribute("name");
      String path = parent.isEmpty() ? name : parent + "/" + name;
      Element type = child(e, "complexType");
      String doc = doc(e);
      if (type == null && e.hasAttribute("type")) {
        type = complexTypes.get(local(e.getAttribute("type")));
        if (doc == null && type != null) {
          doc = doc(type); // an element of a named type may say nothing more than its type does
        }
      }
      List<Attribute> attributes = new ArrayList<>();
      List<ElementDef> children = new ArrayList<>();
      if (type != null) {
        content(type, path, false, false, attributes, children, d);
      }
      return new ElementDef(
          path, name, optional, repeated, doc, List.copyOf(attributes), List.copyOf(children));
    }

    private void content(
        Element node,
        String path,
        boolean optional,
        boolean repeated,
        List<Attribute> attributes,
        List<ElementDef> children,
        int d) {
      for (Element c : xs(node)) {
        switch (c.getLocalName()) {
          case "attribute" -> attributes.add(attribute(c));
          case "element" ->
              children.add(
                  element(
                      c,
                      path,
                      optional || "0".equals(c.getAttribute("minOccurs")),
                      repeated || isMany(c.getAttribute("maxOccurs")),
                      d + 1));
          case "sequence", "all" ->
              content(
                  c,
                  path,
                  optional || "0".equals(c.getAttribute("minOccurs")),
                  repeated || isMany(c.getAttribute("maxOccurs")),
                  attributes,
                  children,
                  d);
          case "choice" ->
              content(
                  c,
                  path,
                  true,
                  repeated || isMany(c.getAttribute("maxOccurs")),
                  attributes,
                  children,
                  d);
          case "complexContent", "simpleContent" -> {
            for (Element x : xs(c)) {
              String base = local(x.getAttribute("base"));
              Element t = complexTypes.get(base);
              if (t != null) {
                content(t, path, optional, repeated, attributes, children, d);
              }
              content(x, path, optional, repeated, attributes, children, d);
            }
          }
          default -> {}
        }
      }
    }

    private static boolean isMany(String maxOccurs) {
      return !maxOccurs.isEmpty() && !"1".equals(maxOccurs) && !"0".equals(maxOccurs);
    }

    private Attribute attribute(Element a) {
      String type;
      Element inline = child(a, "simpleType");
      if (inline != null) {
        type = simpleType(inline);
      } else if (a.hasAttribute("type")) {
        String t = local(a.getAttribute("type"));
        Element named = simpleTypes.get(t);
        type =
            named == null ? t : t + (enumeration(named).isEmpty() ? "" : ": " + enumeration(named));
      } else {
        type = "string";
      }
      String dflt = a.hasAttribute("default") ? a.getAttribute("default") : null;
      return new Attribute(
          a.getAttribute("name"), type, dflt, "required".equals(a.getAttribute("use")), doc(a));
    }

    private String simpleType(Element st) {
      String values = enumeration(st);
      if (!values.isEmpty()) {
        return "one of " + values;
      }
      Element r = child(st, "restriction");
      if (r != null) {
        return local(r.getAttribute("base"));
      }
      return child(st, "union") != null ? "union" : "string";
    }

    private static String enumeration(Element st) {
      Element r = child(st, "restriction");
      if (r == null) {
        return "";
      }
      List<String> values = new ArrayList<>();
      for (Element e : xs(r)) {
        if (e.getLocalName().equals("enumeration")) {
          values.add("`" + e.getAttribute("value") + "`");
        }
      }
      return String.join(", ", values);
    }

    /** The text of the node's {@code xs:annotation/xs:documentation}, or null. */
    private static String doc(Element e) {
      Element ann = child(e, "annotation");
      Element d = ann == null ? null : child(ann, "documentation");
      if (d == null) {
        return null;
      }
      String t = d.getTextContent().replaceAll("\\s+", " ").trim();
      return t.isEmpty() ? null : t;
    }

    private static Element child(Element e, String localName) {
      for (Element c : xs(e)) {
        if (c.getLocalName().equals(localName)) {
          return c;
        }
      }
      return null;
    }

    private static List<Element> xs(Element e) {
      List<Element> out = new ArrayList<>();
      for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
        if (n instanceof Element c && Objects.equals(XS, c.getNamespaceURI())) {
          out.add(c);
        }
      }
      return out;
    }

    private static String local(String qname) {
      int i = qname.indexOf(':');
      return i < 0 ? qname : qname.substring(i + 1);
    }

    @Override
    public String toString() {
      return schema.getTagName();
    }
  }
}
