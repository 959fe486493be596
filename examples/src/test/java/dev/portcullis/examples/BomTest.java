package dev.portcullis.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The BOM (bom/pom.xml) has no parent, so nothing keeps it in step with the build by itself: its
 * version must be the build's, and it must list every library module (every module but the BOM, the
 * examples, the benchmarks and the distribution).
 */
class BomTest {
  private static final Set<String> NOT_LIBRARIES = Set.of("bom", "examples", "bench", "dist");

  private static Document read(Path pom) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return f.newDocumentBuilder().parse(pom.toFile());
  }

  /** The text of the direct child {@code name} of {@code e}. */
  private static String child(Element e, String name) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(name)) {
        return c.getTextContent().strip();
      }
    }
    return null;
  }

  @Test
  void theBomListsEveryLibraryModuleAtTheBuildsVersion() throws Exception {
    Path root = Path.of("..");
    Element build = read(root.resolve("pom.xml")).getDocumentElement();
    Element bom = read(root.resolve("bom/pom.xml")).getDocumentElement();
    assertEquals(child(build, "version"), child(bom, "version"), "bom/pom.xml <version>");
    Element properties = (Element) build.getElementsByTagName("properties").item(0);
    Element install = (Element) bom.getElementsByTagName("plugin").item(0);
    assertEquals(
        child(properties, "install-plugin.version"),
        child(install, "version"),
        "bom/pom.xml: maven-install-plugin at the build's version");

    List<String> libraries = new ArrayList<>();
    var modules = build.getElementsByTagName("module");
    for (int i = 0; i < modules.getLength(); i++) {
      String dir = modules.item(i).getTextContent().strip();
      if (!NOT_LIBRARIES.contains(dir)) {
        libraries.add(
            child(read(root.resolve(dir).resolve("pom.xml")).getDocumentElement(), "artifactId"));
      }
    }
    List<String> listed = new ArrayList<>();
    var deps = bom.getElementsByTagName("dependency");
    for (int i = 0; i < deps.getLength(); i++) {
      Element d = (Element) deps.item(i);
      assertEquals("${project.version}", child(d, "version"), child(d, "artifactId"));
      listed.add(child(d, "artifactId"));
    }
    assertEquals(libraries, listed);
  }
}
