package dev.portcullis.pep.tunnel;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.cops.access.TrafficSelector;
import dev.portcullis.cops.access.TunnelRequest;
import dev.portcullis.pep.PepConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.XmlConfigReader;
import dev.portcullis.tunnel.ProtectionObjective;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.w3c.dom.Element;

/**
 * A tunnel agent's configuration: a pep.xml with {@code client-type="0xC0A8"}, TLS, and a {@code
 * <tunnels>} element naming charon's VICI socket and either the gateway the agent serves or the
 * tunnels it asks for (docs/tunnels.md, "Running the agents"). Checked at load, with file:line
 * errors.
 *
 * @param pep the PEP part (PDP, id, TLS)
 * @param vici charon's VICI socket
 * @param timeout how long a VICI command may take
 * @param gateway the gateway's standing request, or null for a client agent
 * @param tunnels a client agent's requests, in file order (empty for a gateway agent)
 */
public record TunnelAgentConfig(
    PepConfig pep,
    Path vici,
    Duration timeout,
    TunnelRequest gateway,
    List<TunnelRequest> tunnels) {
  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(PepConfig.class, "/dev/portcullis/pep/pep.xsd");

  /** Reads and checks {@code file}. */
  public static TunnelAgentConfig load(Path file) throws ConfigException {
    Element root = READER.read(file);
    Element t = child(root, "tunnels");
    if (t == null) {
      throw error(
          root, "id", "a tunnel agent needs <tunnels vici=...> with a <gateway> or <tunnel>s");
    }
    if (!attr(root, "client-type", "").equalsIgnoreCase("0xC0A8")) {
      throw error(
          root,
          "client-type",
          "client-type: a tunnel agent speaks the tunnel client type, client-type=\"0xC0A8\"");
    }
    Element sec = child(root, "security");
    if (sec == null || child(sec, "tls") == null) {
      throw error(
          t, "vici", "tunnels carry their keys over TLS only: add <security><tls .../></security>");
    }
    Path vici = Path.of(XmlConfigReader.value(t, "vici"));
    Duration timeout = XmlConfigReader.duration(t, "timeout");
    String id = attr(root, "id", "");
    TunnelRequest gateway = null;
    Element g = child(t, "gateway");
    if (g != null) {
      String name = attr(g, "name", "");
      if (!name.equals(id)) {
        throw error(
            g,
            "name",
            "gateway "
                + name
                + ": a gateway agent's PEP id (and certificate) is its gateway's name, here "
                + id);
      }
      gateway = TunnelRequest.gateway(name, literal(g, "address"), attr(g, "ike-id", ""));
    }
    List<TunnelRequest> tunnels = new ArrayList<>();
    for (Element e : children(t, "tunnel")) {
      TrafficSelector inner = null; // none: the gateway hands one out from the rule's pool
      try {
        if (e.hasAttribute("inner")) {
          inner = TrafficSelector.parse(attr(e, "inner", ""));
        }
      } catch (IllegalArgumentException x) {
        throw error(e, "inner", x.getMessage());
      }
      ProtectionObjective o;
      try {
        o = ProtectionObjective.of(XmlConfigReader.value(e, "objective"));
      } catch (IllegalArgumentException x) {
        throw error(e, "objective", x.getMessage());
      }
      if (o.refusal() != null) {
        throw error(e, "objective", o.refusal());
      }
      String cred = credential(file, e);
      tunnels.add(
          TunnelRequest.client(
              attr(e, "subject", ""),
              attr(e, "gateway", ""),
              literal(e, "address"),
              inner,
              TunnelRequest.Objective.valueOf(o.name()),
              attr(e, "ike-id", ""),
              cred));
    }
    return new TunnelAgentConfig(PepConfig.load(file), vici, timeout, gateway, tunnels);
  }

  /**
   * The one-time credential a {@code <tunnel>} names: {@code credential=} its id, or {@code
   * credential-file=} the file issue-credential's line was kept in, of which only the id (before
   * the dot) is read and sent; null for none.
   */
  private static String credential(Path config, Element e) throws ConfigException {
    if (e.hasAttribute("credential") && e.hasAttribute("credential-file")) {
      throw error(e, "credential-file", "credential and credential-file: name the credential once");
    }
    if (!e.hasAttribute("credential-file")) {
      return e.hasAttribute("credential") ? attr(e, "credential", "") : null;
    }
    Path f =
        config.toAbsolutePath().getParent().resolve(attr(e, "credential-file", "")).normalize();
    byte[] line;
    try {
      line = java.nio.file.Files.readAllBytes(f);
    } catch (java.io.IOException x) {
      throw error(
          e,
          "credential-file",
          "credential file "
              + f
              + " cannot be read ("
              + x.getClass().getSimpleName()
              + "): keep the line issue-credential printed there (docs/tunnels.md)");
    }
    // only the id, before the dot, is kept; the secret after it is zeroed as soon as it is read
    int start = 0;
    while (start < line.length && line[start] <= ' ') {
      start++;
    }
    int end = start;
    while (end < line.length && line[end] != '.' && line[end] > ' ') {
      end++;
    }
    String id = new String(line, start, end - start, java.nio.charset.StandardCharsets.US_ASCII);
    java.util.Arrays.fill(line, (byte) 0);
    if (!id.matches("otc-[0-9a-f]{16}")) {
      // never the file's content in the message: it may hold a secret
      throw error(
          e,
          "credential-file",
          "credential file " + f + " does not hold a credential (expected: otc-<16 hex>.SECRET)");
    }
    return id;
  }

  /** A literal address (no name lookups: the tunnel's ends are what the PDP checks). */
  private static InetAddress literal(Element e, String name) throws ConfigException {
    String v = attr(e, name, "");
    if (!v.matches("[0-9.]+|[0-9a-fA-F:]+")) {
      throw error(e, name, name + ": " + v + " (expected: a literal IPv4 or IPv6 address)");
    }
    try {
      return InetAddress.getByName(v);
    } catch (UnknownHostException x) {
      throw error(e, name, name + ": " + v + " (expected: a literal IPv4 or IPv6 address)");
    }
  }
}
