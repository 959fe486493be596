package dev.portcullis.bench.cost;

import static dev.portcullis.bench.cost.Report.esc;

import java.util.Locale;

/**
 * The report's section for a run across the network lab ({@code --network lab}): where the bytes
 * went, that ESP ran in userspace and what that costs, how to run the same against kernel IPsec,
 * and the COPS over TLS/IPsec paper's three scenarios beside this run's.
 */
final class NetworkSection {
  private NetworkSection() {}

  /** The paper's table 4.1 (connection, ms, mean of 5) and its PEP's session operations (ms). */
  private static final double PAPER_PURE = 24;

  private static final double PAPER_TLS = 24_034.8;
  private static final double PAPER_IPSEC = 657.4;
  private static final double PAPER_OPS_PURE = 416.4;
  private static final double PAPER_OPS_TLS = 514.6;
  private static final double PAPER_OPS_IPSEC = 548.8;

  static void write(StringBuilder h, Report r) {
    h.append("<h2>Across the network lab</h2><p>The PDPs ran in one network namespace, the PEPs")
        .append(" and the harness in another, joined by a veth pair; every layer crossed it. The")
        .append(" IPsec layers crossed it inside ESP between addresses on each side's loopback,")
        .append(" by strongSwan's charon with <code>kernel-libipsec</code>: <b>ESP ran in")
        .append(" userspace</b>, every packet through a TUN device into charon and back, because")
        .append(" this kernel has no ESP. That path, not the cipher, is most of what the ESP")
        .append(" layers cost here (ESP-NULL costs what AES-GCM does). On a kernel with ESP,")
        .append(" drop <code>kernel-libipsec</code> from the lab's plugin list")
        .append(" (<code>CharonProcess</code>) and run the same command: the same layers then")
        .append(" measure kernel IPsec. The IKE layer negotiates before each connection")
        .append(" (<code>initiate</code>, then connect): userspace ESP has no trap policy")
        .append(" (libipsec drops a packet that has no SA rather than asking for one), and a")
        .append(" kernel's trap would also cost the dropped first SYN its retransmission.</p>");
    java.util.List<String> noisy = new java.util.ArrayList<>();
    for (String l : r.layerNames()) {
      if (!l.contains("ESP") && !l.contains("IKE")) {
        continue;
      }
      for (Metric m : Metric.values()) {
        Cell c = r.cell(l, m);
        if (c != null && c.stats().wide()) {
          noisy.add(l + " " + m);
        }
      }
    }
    h.append("<p><b>Noise in the IPsec cells:</b> ")
        .append(
            noisy.isEmpty()
                ? "every one is within ±10 % of its median."
                : esc(String.join(", ", noisy))
                    + (noisy.size() == 1 ? " is" : " are")
                    + " wider than ±10 % of the median: ESP and IKE run in both charons'"
                    + " thread pools on the same cores as the PDP, the PEPs and the harness, so"
                    + " each packet (each negotiation) meets a different scheduling; more trials"
                    + " narrow the interval, a machine with cores to spare narrows the spread.")
        .append("</p>");
    h.append("<h3>The COPS over TLS/IPsec paper's three scenarios beside this run</h3>")
        .append("<p>The paper timed the connection (table 4.1: TCP connect; TLS connect and")
        .append(" handshake; IPsec connect with its negotiation) and the PEP's five-message")
        .append(" operations, five runs each, on two PCs of its day with 3DES and SHA-1.</p>")
        .append("<table><tr><th>scenario</th><th>paper: connection, ms</th><th>this run</th>")
        .append("<th>paper: operations, ms</th><th>this run</th></tr>");
    row(
        h,
        "pure COPS",
        PAPER_PURE,
        PAPER_OPS_PURE,
        r.cell(Report.BASE, Metric.CC),
        r.cell(Report.BASE, Metric.SESSION_OPERATIONS));
    Cell tlsCc = null;
    Cell tlsOps = null;
    String tls = null;
    for (String l : r.layerNames()) {
      if (tls == null && l.startsWith("TLS ") && !l.contains("+") && !l.contains(" in ESP")) {
        tls = l;
        tlsCc = r.cell(l, Metric.CC);
        tlsOps = r.cell(l, Metric.SESSION_OPERATIONS);
      }
    }
    row(
        h,
        "COPS/TLS (" + (tls == null ? "none" : tls) + ", full)",
        PAPER_TLS,
        PAPER_OPS_TLS,
        tlsCc,
        tlsOps);
    row(
        h,
        "COPS/IPsec (IKE per connection; operations in ESP)",
        PAPER_IPSEC,
        PAPER_OPS_IPSEC,
        r.cell("plain, IKE per connection", Metric.CC_IKE),
        r.cell("plain in ESP", Metric.SESSION_OPERATIONS));
    h.append("</table><p>What changed since: the paper's TLS connection was 1,001 times its")
        .append(" TCP connect, 85 % of it spent generating three handshake random numbers on a")
        .append(" PC of its day; here TLS 1.3 with X25519 and AES-GCM on AES-NI costs a few")
        .append(" times a TCP connect, and a resumed session (CC_RESUMED) less. IPsec's IKE")
        .append(" (IKEv2, PSK, X25519) is a few milliseconds. The operations, which the paper")
        .append(" found 1.2-1.3 times pure COPS, are a fraction of a millisecond on either")
        .append(" path; ESP in userspace is what makes its row dearer here.</p>");
  }

  private static void row(
      StringBuilder h, String name, double paperCc, double paperOps, Cell cc, Cell ops) {
    h.append("<tr><td>")
        .append(esc(name))
        .append("</td><td>")
        .append(ms(paperCc))
        .append("</td><td>")
        .append(cc == null ? "-" : ms(cc.stats().median() / 1e3))
        .append("</td><td>")
        .append(ms(paperOps))
        .append("</td><td>")
        .append(ops == null ? "-" : ms(ops.stats().median() / 1e3))
        .append("</td></tr>");
  }

  private static String ms(double v) {
    return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : v >= 1 ? "%.2f" : "%.3f", v);
  }
}
