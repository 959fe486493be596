package dev.portcullis.cops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.pcmm.GateMessage;
import dev.portcullis.cops.pcmm.PcmmCops;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The independent check: every hand-written vector, as our encoder produces it, is decoded by
 * Wireshark's COPS dissector (tshark), which must see the same op code, message length and objects
 * (C-Num and object length, in order) and flag nothing as malformed. Skipped where tshark is not
 * installed ({@code apt-get install tshark}); docs/cops-wire.md records a run.
 */
class WiresharkCrossCheckTest {
  @TempDir static Path dir;

  @BeforeAll
  static void needsTshark() {
    Assumptions.assumeTrue(
        runs("tshark", "--version") && runs("text2pcap", "--version"),
        "tshark and text2pcap not installed: the Wireshark cross-check is skipped");
  }

  private static boolean runs(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static List<CopsVectors.Vector> vectors() {
    return CopsVectors.all();
  }

  private static String run(List<String> cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectors")
  void wiresharkReadsWhatWeWrite(CopsVectors.Vector v) throws Exception {
    String[] f =
        fields(
            capture(v),
            "cops.op_code",
            "cops.msg_len",
            "cops.c_num",
            "cops.obj.len",
            "_ws.malformed");
    byte[] b = CopsCodec.encode(v.message());
    CopsMessage m = v.message();
    assertEquals(String.valueOf(m.opCode().code()), f[0], "op code");
    assertEquals(String.valueOf(b.length), f[1], "message length");
    List<String> cNums = new ArrayList<>();
    List<String> lengths = new ArrayList<>();
    for (CopsObject o : m.objects()) {
      cNums.add(String.valueOf(o.cNum().code()));
      lengths.add(String.valueOf(o.objectLength()));
    }
    assertEquals(String.join(",", cNums), pairs(f[2]), "C-Nums as Wireshark sees them");
    assertEquals(String.join(",", lengths), f[3], "object lengths as Wireshark sees them");
    assertEquals("", f[4], "Wireshark flags the message as malformed");
  }

  static List<CopsVectors.Vector> pcmmVectors() {
    return CopsVectors.all().stream()
        .filter(v -> v.message().clientType() == PcmmCops.CLIENT_TYPE)
        .toList();
  }

  /**
   * Inside the COPS objects, Wireshark's PacketCable part must read the gate control message we
   * meant: its Transaction ID and Gate Command Type, and in a DEC the Decision Flags (Install with
   * Trigger Error, which deployed CMTSs require).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("pcmmVectors")
  void wiresharkReadsOurGateControlMessages(CopsVectors.Vector v) throws Exception {
    String[] f =
        fields(
            capture(v),
            "cops.pc_transaction_id",
            "cops.pc_gate_command_type",
            "cops.decision.flags",
            "_ws.malformed");
    GateMessage g =
        v.message() instanceof Decision d ? PcmmCops.of(d) : PcmmCops.of((Report) v.message());
    assertEquals(
        String.format("0x%04x", g.transactionId().id()),
        f[0],
        "Transaction ID as Wireshark reads it");
    assertEquals(String.format("0x%04x", g.transactionId().command()), f[1], "Gate Command Type");
    if (v.message() instanceof Decision) {
      assertEquals("0x0001", f[2].split(",")[0], "Decision Flags: Trigger Error");
    }
    assertEquals("", f[3], "Wireshark flags the message as malformed");
  }

  /**
   * The values of {@code names} as tshark reads them from {@code pcap}, one entry per name (empty
   * when absent; several values of one name joined by commas).
   */
  private static String[] fields(Path pcap, String... names) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "tshark",
                "-r",
                pcap.toString(),
                "-T",
                "fields",
                "-E",
                "separator=;",
                "-E",
                "aggregator=,"));
    for (String n : names) {
      cmd.add("-e");
      cmd.add(n);
    }
    return (run(cmd).strip() + ";".repeat(names.length)).split(";", -1);
  }

  /** The vector's message as one TCP segment to the COPS port, in a pcap file. */
  private static Path capture(CopsVectors.Vector v) throws Exception {
    byte[] b = CopsCodec.encode(v.message());
    StringBuilder dump = new StringBuilder();
    for (int i = 0; i < b.length; i += 16) {
      dump.append(String.format("%06x", i));
      for (int j = i; j < Math.min(b.length, i + 16); j++) {
        dump.append(String.format(" %02x", b[j]));
      }
      dump.append('\n');
    }
    Path txt = Files.writeString(dir.resolve("m.txt"), dump);
    Path pcap = dir.resolve("m.pcap");
    run(List.of("text2pcap", "-q", "-T", "40000,3288", txt.toString(), pcap.toString()));
    return pcap;
  }

  /** Wireshark 4.0 reports each object's C-Num twice (subtree and item): keep one of each. */
  static String pairs(String aggregated) {
    if (aggregated.isEmpty()) {
      return "";
    }
    String[] v = aggregated.split(",");
    assertEquals(0, v.length % 2, "expected each value twice: " + aggregated);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < v.length; i += 2) {
      assertEquals(v[i], v[i + 1], aggregated);
      out.add(v[i]);
    }
    return out.stream().collect(Collectors.joining(","));
  }
}
