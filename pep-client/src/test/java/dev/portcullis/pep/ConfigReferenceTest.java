package dev.portcullis.pep;

import dev.portcullis.support.ConfigSchema;
import dev.portcullis.support.ReferenceDocs;
import org.junit.jupiter.api.Test;

/** docs/reference/ holds what this module's schemas say, each element and attribute documented. */
class ConfigReferenceTest {
  @Test
  void pep() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pep/pep.xsd"),
        "pep.xml: a PEP or a tunnel agent",
        "pep.md");
  }

  @Test
  void pepProxy() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pep/pep-proxy.xsd"),
        "pep-proxy.xml: the enforcing proxy",
        "pep-proxy.md");
  }

  @Test
  void firewall() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pep/firewall.xsd"),
        "firewall.xml: the host firewall",
        "firewall.md");
  }
}
