package dev.portcullis.pdp;

import static dev.portcullis.support.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.ClientClose;
import dev.portcullis.cops.Decision;
import dev.portcullis.cops.DecisionCommand;
import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.access.AccessRequest;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM on a PDP alone ({@link PdpServer#drain} then {@link PdpServer#close}): it stops
 * accepting, lets the decisions its asynchronous engine is making reach their PEPs within {@code
 * <shutdown drain>}, then closes the PEPs with "shutting down".
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PdpDrainTest {
  @TempDir Path dir;

  private PdpServer start(String delay) throws Exception {
    Files.writeString(dir.resolve("delay.txt"), delay);
    Path xml = dir.resolve("pdp.xml");
    Files.writeString(
        xml,
        "<pdp><shutdown drain=\"5s\"/><listen address=\"127.0.0.1\" port=\"0\"/>"
            + "<client-type code=\"0xC0A5\" engine=\"test-delayed\" policy=\"delay.txt\"/></pdp>");
    return PdpServer.start(PdpConfig.load(xml), 1);
  }

  @Test
  void aDecisionBeingMadeReachesItsPepBeforeTheShutdown() throws Exception {
    PdpServer pdp = start("400ms");
    try (BlockingPep pep = new BlockingPep(pdp.address(), AccessRequest.CLIENT_TYPE, "gw-1")) {
      long asked = DelayedEngine.ASKED.get();
      pep.send(EmbeddedPdpTest.req("h1", "alice"));
      await().until(() -> DelayedEngine.ASKED.get() > asked); // the REQ is being decided
      long start = System.nanoTime();
      assertEquals(1, pdp.drain(pdp.config().drainTime()), "the PEP is still connected");
      long waited = System.nanoTime() - start;
      assertTrue(waited < Duration.ofSeconds(4).toNanos(), "returned once nothing was in flight");
      assertThrows(
          IOException.class,
          () -> new Socket(pdp.address().getAddress(), pdp.address().getPort()).close(),
          "no new connection while draining");
      pdp.close();
      Decision d = assertInstanceOf(Decision.class, pep.read(5_000));
      assertEquals(
          DecisionCommand.INSTALL, d.decisions().get(0).flags().decisionCommand(), d.toString());
      ClientClose cc = assertInstanceOf(ClientClose.class, pep.read(5_000));
      assertEquals(ErrorCode.SHUTTING_DOWN.code(), cc.error().code());
    } finally {
      pdp.close();
    }
  }

  @Test
  void aDecisionSlowerThanTheDrainIsCutOff() throws Exception {
    PdpServer pdp = start("30s");
    try (BlockingPep pep = new BlockingPep(pdp.address(), AccessRequest.CLIENT_TYPE, "gw-1")) {
      long asked = DelayedEngine.ASKED.get();
      pep.send(EmbeddedPdpTest.req("h1", "alice"));
      await().until(() -> DelayedEngine.ASKED.get() > asked);
      long start = System.nanoTime();
      pdp.drain(Duration.ofMillis(300));
      assertTrue(System.nanoTime() - start < Duration.ofSeconds(3).toNanos());
      assertFalse(pdp.stats().connectedPeps() == 0);
      pdp.close();
      ClientClose cc = assertInstanceOf(ClientClose.class, pep.read(5_000));
      assertEquals(ErrorCode.SHUTTING_DOWN.code(), cc.error().code());
      assertThrows(EOFException.class, () -> pep.read(2_000), "no decision after it: closed");
    } finally {
      pdp.close();
    }
  }
}
