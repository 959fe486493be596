package dev.portcullis.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The configuration reference in {@code docs/reference/} is generated from the schemas ({@link
 * ConfigSchema#markdown}); each module's {@code ConfigReferenceTest} fails when a page and its
 * schema differ, or when an element or attribute has no documentation. Run the module's tests with
 * {@code -Dportcullis.write-docs=true} to write the pages from the schemas.
 */
public final class ReferenceDocs {
  private ReferenceDocs() {}

  public static void check(ConfigSchema schema, String title, String page) throws IOException {
    assertEquals(
        List.of(),
        schema.undocumented(),
        schema.resource() + ": elements and attributes without xs:documentation");
    Path doc = repository().resolve("docs/reference").resolve(page);
    String want = schema.markdown(title);
    if (Boolean.getBoolean("portcullis.write-docs")) {
      Files.createDirectories(doc.getParent());
      Files.writeString(doc, want);
      return;
    }
    String have = Files.exists(doc) ? Files.readString(doc) : "";
    assertEquals(
        want,
        have,
        doc
            + " is generated from "
            + schema.resource()
            + ": run this module's tests with -Dportcullis.write-docs=true to write it");
  }

  /** The checkout's root: the nearest directory up from here with {@code docs/} and a pom. */
  private static Path repository() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isDirectory(p.resolve("docs")) && Files.exists(p.resolve("pom.xml"))) {
        return p;
      }
    }
    throw new IllegalStateException("no checkout above " + Path.of("").toAbsolutePath());
  }
}
