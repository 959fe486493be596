package dev.portcullis.crypto;

import dev.portcullis.support.ConfigSchema;
import dev.portcullis.support.ReferenceDocs;
import org.junit.jupiter.api.Test;

/** docs/reference/ holds what this module's schemas say, each element and attribute documented. */
class ConfigReferenceTest {
  @Test
  void cryptoProviders() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/crypto/crypto-providers.xsd"),
        "crypto-providers.xml: the provider table",
        "crypto-providers.md");
  }
}
