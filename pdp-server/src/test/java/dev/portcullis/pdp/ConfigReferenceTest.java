package dev.portcullis.pdp;

import dev.portcullis.support.ConfigSchema;
import dev.portcullis.support.ReferenceDocs;
import org.junit.jupiter.api.Test;

/** docs/reference/ holds what this module's schemas say, each element and attribute documented. */
class ConfigReferenceTest {
  @Test
  void pdp() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pdp/pdp.xsd"),
        "pdp.xml: the PDP",
        "pdp.md");
  }

  @Test
  void policyRules() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pdp/policy-rules.xsd"),
        "A rules policy (engine rules)",
        "policy-rules.md");
  }

  @Test
  void policyMls() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pdp/policy-mls.xsd"),
        "A multilevel-security policy (engine mls)",
        "policy-mls.md");
  }

  @Test
  void policyTunnels() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pdp/policy-tunnels.xsd"),
        "A tunnel policy",
        "policy-tunnels.md");
  }
}
