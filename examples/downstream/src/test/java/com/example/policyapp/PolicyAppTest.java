package com.example.policyapp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class PolicyAppTest {
  @TempDir Path dir;

  @Test
  void thePdpAndPepFromTheInstalledArtifactsDecide() throws Exception {
    assertTrue(PolicyApp.mayUse(dir, "alice", "wiki"));
    assertFalse(PolicyApp.mayUse(dir, "mallory", "wiki"));
  }
}
