package dev.portcullis.pep;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class PepConnectorTest {
  @Test
  void aConnectFailureIsSaidInWordsWithoutTheTransportsDecoration() {
    assertEquals(
        "connection refused",
        PepConnector.why(
            new ConnectException(
                "finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:3288")));
    assertEquals(
        "connection refused",
        PepConnector.why(new ConnectException("Connection refused: /127.0.0.1:3288")));
    assertEquals(
        "connection timed out: 10.0.0.1:3288",
        PepConnector.why(new ConnectException("connection timed out: 10.0.0.1:3288")));
    assertEquals("ConnectException", PepConnector.why(new ConnectException()));
  }
}
