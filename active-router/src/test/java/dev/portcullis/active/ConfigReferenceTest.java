package dev.portcullis.active;

import dev.portcullis.support.ConfigSchema;
import dev.portcullis.support.ReferenceDocs;
import org.junit.jupiter.api.Test;

/** docs/reference/ holds what this module's schemas say, each element and attribute documented. */
class ConfigReferenceTest {
  @Test
  void rosa() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/active/rosa.xsd"),
        "rosa.xml: an active network domain",
        "rosa.md");
  }
}
