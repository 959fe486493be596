package dev.portcullis.active.auth;

import dev.portcullis.support.LinkAttacks;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Authorization Server's files (its nonce journal and audit log) are taken only as files of
 * their own: docs/security.md, principle 9.
 */
class AuthFilesTest {
  @TempDir Path dir;

  @Test
  void aNonceJournalPathThatIsALinkIsRefused() throws Exception {
    LinkAttacks.refused(dir, "nonces.journal", f -> new NonceJournal(f, 0, 100).close());
  }

  @Test
  void anAuthorizationAuditPathThatIsALinkIsRefused() throws Exception {
    LinkAttacks.refused(dir, "as-audit.jsonl", f -> new AuthAudit(f, Clock.systemUTC()).close());
  }
}
