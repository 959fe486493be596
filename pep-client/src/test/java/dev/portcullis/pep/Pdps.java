package dev.portcullis.pep;

import dev.portcullis.pdp.PdpConfig;
import dev.portcullis.pdp.PdpServer;
import java.nio.file.Files;
import java.nio.file.Path;

/** Starts PDPs on 127.0.0.1 with a free port, from config text written to a temp directory. */
final class Pdps {
  private Pdps() {}

  static final String RULES =
      """
      <rules>
        <rule id="ssh" decision="install" reason="ops">
          <match operation="ACCESS" subject="alice" service="ssh" destination="10.0.0.0/8" destination-port="22"/>
          <grant valid-for="PT1H"/>
        </rule>
        <rule id="web" decision="install">
          <match destination-port="443"/>
        </rule>
        <default decision="remove" reason="no rule"/>
      </rules>
      """;

  static final String MLS =
      """
      <mls>
        <levels>
          <level name="U" rank="0"/><level name="C" rank="1"/><level name="S" rank="2"/>
        </levels>
        <categories><category name="NATO"/></categories>
        <subject name="alice" min="U" max="S" categories="NATO"/>
        <service name="intel" level="C" categories="NATO" model="blp"/>
      </mls>
      """;

  static Path write(Path dir, String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  /**
   * A PDP serving 0xC0A5 with {@link #RULES} and 0xC0A6 with {@link #MLS}; {@code extra} is a
   * {@code <limits>} or {@code <timers>} element, or redirects.
   */
  static PdpServer start(Path dir, String extra) throws Exception {
    return start(dir, "", extra);
  }

  /** As {@link #start(Path, String)}, with {@code crypto} (a {@code <crypto>} element) first. */
  static PdpServer start(Path dir, String crypto, String extra) throws Exception {
    return start(dir, crypto, extra, java.time.Clock.systemUTC());
  }

  /** As {@link #start(Path, String, String)}, the PDP on {@code clock}. */
  static PdpServer start(Path dir, String crypto, String extra, java.time.Clock clock)
      throws Exception {
    write(dir, "rules.xml", RULES);
    write(dir, "mls.xml", MLS);
    // a leading <timers .../> goes where timers go; what follows it, where it goes alone
    String timers =
        extra.startsWith("<timers")
            ? extra.substring(0, extra.indexOf("/>") + 2)
            : "<timers keepalive=\"PT30S\" handshake=\"PT2S\"/>";
    String rest = extra.startsWith("<timers") ? extra.substring(timers.length()) : extra;
    Path cfg =
        write(
            dir,
            "pdp.xml",
            """
            <pdp>
              %CRYPTO%
              <listen address="127.0.0.1" port="0"/>
              %TIMERS%
              %LIMITS%
              <client-type code="0xC0A5" engine="rules" policy="rules.xml"/>
              <client-type code="0xC0A6" engine="mls" policy="mls.xml"/>
              %EXTRA%
              <audit file="audit.jsonl"/>
            </pdp>
            """
                .replace("%LIMITS%", rest.startsWith("<limits") ? rest : "")
                .replace("%EXTRA%", rest.startsWith("<limits") ? "" : rest)
                .replace("%TIMERS%", timers)
                .replace("%CRYPTO%", crypto));
    return PdpServer.start(PdpConfig.load(cfg), 2, clock);
  }
}
