package dev.portcullis.tunnel.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What crosses the lab's veth while a side pings the other's inner address: {@code tcpdump -X} on
 * side b's link, each packet as its summary line and the hex of its bytes, sorted into ESP (in
 * UDP), IKE, and anything else (which, with a tunnel up, must be nothing).
 *
 * @param esp ESP packets (tcpdump's "UDP-encap: ESP")
 * @param ike IKE packets on the same port ("NONESP-encap: isakmp")
 * @param other everything else: a packet in clear
 */
public record LabCapture(List<String> esp, List<String> ike, List<String> other) {

  /**
   * Pings {@code to} from {@code from} in side a's namespace (3 echo requests carrying {@code
   * pattern}, hex) while capturing 6 packets at side b's link.
   *
   * @throws IOException with ping's output when the pings got no answer (no tunnel, say)
   */
  public static LabCapture pingAcross(
      NetworkLab lab, Path dir, String from, String to, String pattern)
      throws IOException, InterruptedException {
    Path cap = Files.createTempFile(dir, "capture-", ".txt");
    Process tcpdump =
        lab.spawn(
            lab.b(), cap, "tcpdump", "-i", lab.b().link(), "-nn", "-X", "-l", "-c", "6", "ip");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      // tcpdump says it listens before the first packet is sent: a real wait on another process
      while (!Files.readString(cap).contains("listening on") && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      lab.exec(lab.a(), "ping", "-c", "3", "-i", "0.2", "-W", "2", "-p", pattern, "-I", from, to);
      if (!tcpdump.waitFor(10, TimeUnit.SECONDS)) {
        throw new IOException("6 packets not captured in 10 s: " + Files.readString(cap));
      }
      return of(Files.readString(cap));
    } finally {
      tcpdump.destroyForcibly();
    }
  }

  /** Sorts a {@code tcpdump -X} capture. */
  public static LabCapture of(String capture) {
    List<String> esp = new ArrayList<>();
    List<String> ike = new ArrayList<>();
    List<String> other = new ArrayList<>();
    for (String p : packets(capture)) {
      if (p.contains("UDP-encap: ESP")) {
        esp.add(p);
      } else if (p.contains("NONESP-encap: isakmp")) {
        ike.add(p);
      } else {
        other.add(p);
      }
    }
    return new LabCapture(esp, ike, other);
  }

  /** The packets of a {@code tcpdump -X} capture: summary line, " | ", the bytes in hex. */
  static List<String> packets(String capture) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = null;
    for (String line : capture.split("\n")) {
      if (line.matches("^\\d\\d:\\d\\d:\\d\\d.*")) {
        if (cur != null) {
          out.add(cur.toString());
        }
        cur = new StringBuilder(line).append(" | ");
      } else if (cur != null && line.matches("^\\s+0x[0-9a-f]{4}:.*")) {
        String hex = line.replaceFirst("^\\s+0x[0-9a-f]{4}:\\s+", "");
        hex = hex.length() > 40 ? hex.substring(0, 40) : hex; // the hex columns, not the ASCII
        cur.append(hex.replace(" ", ""));
      }
    }
    if (cur != null) {
      out.add(cur.toString());
    }
    return out;
  }
}
