package dev.portcullis.support;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * SAX to DOM for {@link XmlConfigReader}: each element remembers the file, line and column it came
 * from, and the schema's complaints about one spot are grouped into one {@link ConfigException}.
 */
final class LocatedDom extends DefaultHandler {
  static final class Abort extends SAXException {
    private static final long serialVersionUID = 1L;
    final transient ConfigException error;

    Abort(ConfigException error) {
      super(error.getMessage());
      this.error = error;
    }
  }

  private final String source;
  final Document doc;
  private final Deque<Element> open = new ArrayDeque<>();
  private final List<SAXParseException> errors = new ArrayList<>();
  private Locator locator;

  LocatedDom(String source) {
    this.source = source;
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(true);
      this.doc = f.newDocumentBuilder().newDocument();
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException(e);
    }
  }

  String current() {
    return open.isEmpty() ? null : open.peek().getLocalName();
  }

  @Override
  public void setDocumentLocator(Locator l) {
    this.locator = l;
  }

  @Override
  public void error(SAXParseException e) {
    // A schema violation arrives before the content callback for its tag, often as a type
    // message then an attribute message: collect them, report the group at the next callback.
    errors.add(e);
  }

  @Override
  public void fatalError(SAXParseException e) throws SAXException {
    throw e;
  }

  ConfigException pending() {
    if (errors.isEmpty()) {
      return null;
    }
    ConfigException e = XmlConfigReader.describe(source, new ArrayList<>(errors), current());
    errors.clear();
    return e;
  }

  void flush() throws ConfigException {
    ConfigException e = pending();
    if (e != null) {
      throw e;
    }
  }

  private void check() throws Abort {
    ConfigException e = pending();
    if (e != null) {
      throw new Abort(e);
    }
  }

  @Override
  public void startElement(String uri, String localName, String qName, Attributes attrs)
      throws SAXException {
    check();
    Element e = doc.createElementNS(uri.isEmpty() ? null : uri, qName);
    for (int i = 0; i < attrs.getLength(); i++) {
      e.setAttribute(attrs.getQName(i), attrs.getValue(i));
    }
    e.setUserData(XmlConfigReader.LINE, locator == null ? -1 : locator.getLineNumber(), null);
    e.setUserData(XmlConfigReader.COLUMN, locator == null ? -1 : locator.getColumnNumber(), null);
    e.setUserData(XmlConfigReader.SOURCE, source, null);
    if (open.isEmpty()) {
      doc.appendChild(e);
    } else {
      open.peek().appendChild(e);
    }
    open.push(e);
  }

  @Override
  public void endElement(String uri, String localName, String qName) throws SAXException {
    check();
    open.pop();
  }

  @Override
  public void characters(char[] ch, int start, int length) throws SAXException {
    check();
    if (!open.isEmpty()) {
      String s = new String(ch, start, length);
      if (!s.isBlank()) {
        open.peek().appendChild(doc.createTextNode(s));
      }
    }
  }

  @Override
  public void endDocument() throws SAXException {
    check();
  }
}
