package dev.portcullis.pcmm;

import dev.portcullis.support.ConfigSchema;
import dev.portcullis.support.ReferenceDocs;
import org.junit.jupiter.api.Test;

/** docs/reference/pcmm.md holds what pcmm.xsd says, each element and attribute documented. */
class ConfigReferenceTest {
  @Test
  void pcmm() throws Exception {
    ReferenceDocs.check(
        ConfigSchema.load(ConfigReferenceTest.class, "/dev/portcullis/pcmm/pcmm.xsd"),
        "pcmm.xml: the PacketCable Multimedia policy server",
        "pcmm.md");
  }
}
