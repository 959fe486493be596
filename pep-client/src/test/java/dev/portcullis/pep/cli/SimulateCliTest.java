package dev.portcullis.pep.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The session simulator fails fast, with the reason, when its first session cannot be made. */
@Timeout(60)
class SimulateCliTest {
  @Test
  void aPdpThatIsNotThereIsOneLineAndNoTableOfZeros() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var cl = Cli.of("pep-client", new PepMain());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute("simulate", "--pdp", "127.0.0.1:" + port, "--sessions", "1000");
    assertEquals(Cli.FAILED, code);
    assertTrue(
        err.toString()
            .startsWith("pep-client: the first session against 127.0.0.1:" + port + " failed: "),
        err.toString());
    assertTrue(err.toString().contains("give --config a pep.xml"), err.toString());
    assertFalse(out.toString().contains("PHASE"), "no table: " + out);
  }
}
