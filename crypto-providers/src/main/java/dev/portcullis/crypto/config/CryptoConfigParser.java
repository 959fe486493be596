package dev.portcullis.crypto.config;

import dev.portcullis.config.ConfigException;
import dev.portcullis.config.XmlConfigReader;
import dev.portcullis.crypto.Algorithm;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.datatype.DatatypeConfigurationException;
import javax.xml.datatype.DatatypeFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Validates {@code crypto-providers.xml} against the shipped schema and turns it into a {@link
 * CryptoConfig}, in one SAX pass so every error carries the line and column where it was found.
 *
 * <p>The schema checks structure and value types; this class adds the rules a schema cannot say
 * (legacy marks, duplicate providers in a list, durations Java can represent) and reports them in
 * the same shape.
 */
final class CryptoConfigParser {
  static final String SCHEMA_RESOURCE = "/dev/portcullis/crypto/crypto-providers.xsd";

  private static final Schema SCHEMA = loadSchema();
  private static final DatatypeFactory DATATYPES = datatypeFactory();
  private static final java.util.Date EPOCH = new java.util.Date(0);

  private CryptoConfigParser() {}

  static CryptoConfig parse(InputStream in, String sourceName) throws CryptoConfigException {
    Handler handler = new Handler(sourceName);
    try {
      SAXParser parser = newParser();
      parser.parse(in, handler);
      handler.flushSchemaErrors();
    } catch (ConfigAbort e) {
      throw e.error;
    } catch (SAXParseException e) {
      handler.flushSchemaErrorsOr(e);
    } catch (SAXException e) {
      throw new CryptoConfigException(
          sourceName, "not a valid configuration: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new CryptoConfigException(sourceName, "cannot read: " + e.getMessage(), e);
    }
    return handler.result();
  }

  private static SAXParser newParser() throws SAXException {
    SAXParserFactory f = SAXParserFactory.newInstance();
    f.setNamespaceAware(true);
    f.setSchema(SCHEMA);
    try {
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      // A configuration file has no business declaring entities: refuse DOCTYPE outright.
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      f.setFeature("http://xml.org/sax/features/external-general-entities", false);
      f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
      return f.newSAXParser();
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("the JDK's XML parser lacks a required feature", e);
    }
  }

  private static DatatypeFactory datatypeFactory() {
    try {
      return DatatypeFactory.newInstance();
    } catch (DatatypeConfigurationException e) {
      throw new IllegalStateException("the JDK has no javax.xml.datatype implementation", e);
    }
  }

  private static Schema loadSchema() {
    URL url = CryptoConfigParser.class.getResource(SCHEMA_RESOURCE);
    if (url == null) {
      throw new IllegalStateException("schema missing from the jar: " + SCHEMA_RESOURCE);
    }
    try {
      SchemaFactory sf = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
      return sf.newSchema(url);
    } catch (SAXException e) {
      throw new IllegalStateException("shipped schema does not load: " + SCHEMA_RESOURCE, e);
    }
  }

  /** Carries a finished error out of the SAX callbacks, which may only throw SAXException. */
  private static final class ConfigAbort extends SAXException {
    private static final long serialVersionUID = 1L;
    final transient CryptoConfigException error;

    ConfigAbort(CryptoConfigException error) {
      super(error.getMessage());
      this.error = error;
    }
  }

  private static final class Handler extends DefaultHandler {
    private final String source;
    private final CryptoConfig.Builder builder;
    private final Deque<String> open = new ArrayDeque<>();
    private final List<SAXParseException> pendingSchemaErrors = new ArrayList<>();
    private final Set<Algorithm> seenAlgorithms = EnumSet.noneOf(Algorithm.class);
    private Locator locator;

    private List<String> currentList;
    private String currentListName;
    private Algorithm currentAlgorithm;
    private final List<String> defaults = new ArrayList<>();

    Handler(String source) {
      this.source = source;
      this.builder = CryptoConfig.builder().source(source);
    }

    @Override
    public void setDocumentLocator(Locator locator) {
      this.locator = locator;
    }

    @Override
    public void error(SAXParseException e) {
      // Schema violations arrive here before the content callback for the offending tag; one
      // problem often yields two messages (the type, then the attribute), so collect them and
      // report the group at the next callback.
      pendingSchemaErrors.add(e);
    }

    @Override
    public void fatalError(SAXParseException e) throws SAXException {
      throw e;
    }

    @Override
    public void startElement(String uri, String localName, String qName, Attributes attrs)
        throws SAXException {
      flushOrAbort();
      open.push(localName);
      switch (localName) {
        case "crypto-providers":
          builder.prewarm(bool(attrs, "prewarm", true));
          builder.selfTest(bool(attrs, "self-test", true));
          builder.watch(bool(attrs, "watch", false));
          builder.watchInterval(duration(attrs, "watch-interval"));
          break;
        case "default":
          currentList = defaults;
          currentListName = "default";
          break;
        case "algorithm":
          startAlgorithm(attrs);
          break;
        case "provider":
          addProvider(attrs.getValue("name"));
          break;
        default:
          // Unknown elements were already reported by the schema.
          break;
      }
    }

    @Override
    public void endElement(String uri, String localName, String qName) throws SAXException {
      flushOrAbort();
      open.pop();
      if ("algorithm".equals(localName)) {
        if (currentAlgorithm != null && !currentList.isEmpty()) {
          builder.prefer(currentAlgorithm, currentList.toArray(new String[0]));
        }
        currentAlgorithm = null;
        currentList = null;
      } else if ("default".equals(localName)) {
        currentList = null;
      }
    }

    @Override
    public void characters(char[] ch, int start, int length) throws SAXException {
      flushOrAbort();
    }

    @Override
    public void endDocument() throws SAXException {
      flushOrAbort();
    }

    private void startAlgorithm(Attributes attrs) throws SAXException {
      String name = attrs.getValue("name");
      Algorithm a;
      try {
        a = Algorithm.ofJcaName(name);
      } catch (IllegalArgumentException e) {
        throw abort("algorithm", "name", e.getMessage());
      }
      if (!seenAlgorithms.add(a)) {
        throw abort(
            "algorithm",
            "name",
            "algorithm " + name + " configured twice (expected: one <algorithm> per name)");
      }
      boolean legacy = bool(attrs, "legacy", false);
      if (legacy && !a.legacy()) {
        throw abort(
            "algorithm",
            "legacy",
            name
                + " is not a legacy algorithm (expected: legacy=\"true\" only on MD5 and SHA-1"
                + " based algorithms)");
      }
      if (!legacy && a.legacy()) {
        throw abort(
            "algorithm",
            "legacy",
            name
                + " is a legacy algorithm (expected: legacy=\"true\" to enable it where a protocol"
                + " demands it, or remove the entry to keep it disabled)");
      }
      if (legacy) {
        builder.enableLegacy(a);
      }
      currentAlgorithm = a;
      currentList = new ArrayList<>();
      currentListName = name;
    }

    private void addProvider(String name) throws SAXException {
      if (currentList == null || name == null) {
        return; // misplaced or nameless: the schema has reported it
      }
      if (currentList.contains(name)) {
        throw abort(
            "provider",
            "name",
            "provider "
                + name
                + " listed twice for "
                + currentListName
                + " (expected: each provider once per list)");
      }
      currentList.add(name);
    }

    private boolean bool(Attributes attrs, String name, boolean dflt) {
      String v = attrs.getValue(name);
      if (v == null) {
        return dflt;
      }
      v = v.trim();
      return "true".equals(v) || "1".equals(v); // xs:boolean; the schema rejected anything else
    }

    private Duration duration(Attributes attrs, String name) throws SAXException {
      String v = attrs.getValue(name);
      if (v == null) {
        return CryptoConfig.DEFAULT_WATCH_INTERVAL;
      }
      Duration d;
      try {
        // The schema validator fills in defaults in canonical form ("P0Y0M0DT0H0M2S"), which
        // java.time cannot read; javax.xml.datatype reads every xs:duration.
        javax.xml.datatype.Duration x = DATATYPES.newDuration(v.trim());
        if (x.getYears() != 0 || x.getMonths() != 0) {
          throw new IllegalArgumentException("years and months have no fixed length");
        }
        d = Duration.ofMillis(x.getTimeInMillis(EPOCH));
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        throw abort(
            open.peek(),
            name,
            name + ": " + v + " (expected: days, hours, minutes or seconds, e.g. PT2S)");
      }
      if (d.isNegative() || d.isZero()) {
        throw abort(open.peek(), name, name + ": " + v + " (expected: a positive duration)");
      }
      return d;
    }

    private ConfigAbort abort(String element, String attribute, String problem) {
      return new ConfigAbort(
          new CryptoConfigException(
              source,
              locator == null ? -1 : locator.getLineNumber(),
              locator == null ? -1 : locator.getColumnNumber(),
              element,
              attribute,
              problem));
    }

    private void flushOrAbort() throws SAXException {
      CryptoConfigException e = schemaError();
      if (e != null) {
        throw new ConfigAbort(e);
      }
    }

    void flushSchemaErrors() throws CryptoConfigException {
      CryptoConfigException e = schemaError();
      if (e != null) {
        throw e;
      }
    }

    /** Reports pending schema errors if any, else the fatal (well-formedness) error. */
    void flushSchemaErrorsOr(SAXParseException fatal) throws CryptoConfigException {
      CryptoConfigException e = schemaError();
      if (e != null) {
        throw e;
      }
      throw toConfigException(List.of(fatal));
    }

    private CryptoConfigException schemaError() {
      if (pendingSchemaErrors.isEmpty()) {
        return null;
      }
      CryptoConfigException e = toConfigException(pendingSchemaErrors);
      pendingSchemaErrors.clear();
      return e;
    }

    private CryptoConfigException toConfigException(List<SAXParseException> group) {
      ConfigException e = XmlConfigReader.describe(source, group, open.peek());
      return new CryptoConfigException(
          e.source(), e.line(), e.column(), e.element(), e.attribute(), e.problem(), e.getCause());
    }

    CryptoConfig result() throws CryptoConfigException {
      builder.defaults(defaults.toArray(new String[0]));
      try {
        return builder.build();
      } catch (IllegalArgumentException e) {
        // The parser checks each rule where it can point at a line; this is the backstop.
        throw new CryptoConfigException(source, e.getMessage(), e);
      }
    }
  }
}
