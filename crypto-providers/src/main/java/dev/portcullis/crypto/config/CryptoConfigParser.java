package dev.portcullis.crypto.config;

import static dev.portcullis.support.XmlConfigReader.attr;
import static dev.portcullis.support.XmlConfigReader.child;
import static dev.portcullis.support.XmlConfigReader.children;
import static dev.portcullis.support.XmlConfigReader.error;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Durations;
import dev.portcullis.support.XmlConfigReader;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * Validates {@code crypto-providers.xml} against the shipped schema and turns it into a {@link
 * CryptoConfig}. The schema checks structure and value types; this class adds the rules a schema
 * cannot say (legacy marks, duplicates, durations Java can represent) and reports them in the same
 * one-line shape, with the line of the element at fault.
 */
final class CryptoConfigParser {
  static final String SCHEMA_RESOURCE = "/dev/portcullis/crypto/crypto-providers.xsd";

  private static final XmlConfigReader READER =
      XmlConfigReader.forSchema(CryptoConfigParser.class, SCHEMA_RESOURCE);

  /** The schema's {@code watch-interval} default. */
  static Duration defaultWatchInterval() {
    return Durations.parse(READER.defaultOf("crypto-providers", "watch-interval"));
  }

  private CryptoConfigParser() {}

  static CryptoConfig parse(InputStream in, String sourceName) throws ConfigException {
    return build(READER.read(in, sourceName), sourceName);
  }

  private static CryptoConfig build(Element root, String source) throws ConfigException {
    CryptoConfig.Builder b = CryptoConfig.builder().source(source);
    int version = XmlConfigReader.integer(root, "version", 1, Integer.MAX_VALUE);
    if (version != 1) {
      // A newer format may mean things this reader would silently skip: refuse it.
      throw error(
          root,
          "version",
          "version " + version + " is not a format this Portcullis reads (it reads version 1)");
    }
    b.prewarm(XmlConfigReader.bool(root, "prewarm"));
    b.selfTest(XmlConfigReader.bool(root, "self-test"));
    b.watch(XmlConfigReader.bool(root, "watch"));
    Duration interval = XmlConfigReader.duration(root, "watch-interval");
    if (interval.isZero()) {
      throw error(
          root,
          "watch-interval",
          "watch-interval: "
              + XmlConfigReader.value(root, "watch-interval")
              + " (expected: a positive duration)");
    }
    b.watchInterval(interval);
    b.defaults(providers(child(root, "default"), "default").toArray(new String[0]));
    Set<Algorithm> seen = EnumSet.noneOf(Algorithm.class);
    for (Element e : children(root, "algorithm")) {
      String name = attr(e, "name", "");
      Algorithm a;
      try {
        a = Algorithm.ofJcaName(name);
      } catch (IllegalArgumentException x) {
        throw error(e, "name", x.getMessage());
      }
      if (!seen.add(a)) {
        throw error(
            e,
            "name",
            "algorithm " + name + " configured twice (expected: one <algorithm> per name)");
      }
      boolean legacy = XmlConfigReader.bool(e, "legacy");
      if (legacy && !a.legacy()) {
        throw error(
            e,
            "legacy",
            name
                + " is not a legacy algorithm (expected: legacy=\"true\" only on MD5 and SHA-1"
                + " based algorithms)");
      }
      if (!legacy && a.legacy()) {
        throw error(
            e,
            "legacy",
            name
                + " is a legacy algorithm (expected: legacy=\"true\" to enable it where a"
                + " protocol demands it, or remove the entry to keep it disabled)");
      }
      if (legacy) {
        b.enableLegacy(a);
      }
      List<String> list = providers(e, name);
      if (!list.isEmpty()) {
        b.prefer(a, list.toArray(new String[0]));
      }
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      // Every rule is checked above where it can point at a line; this is the backstop.
      throw new ConfigException(source, e.getMessage(), e);
    }
  }

  private static List<String> providers(Element list, String listName) throws ConfigException {
    List<String> out = new ArrayList<>();
    for (Element p : children(list, "provider")) {
      String name = attr(p, "name", "");
      if (out.contains(name)) {
        throw error(
            p,
            "name",
            "provider "
                + name
                + " listed twice for "
                + listName
                + " (expected: each provider once per list)");
      }
      out.add(name);
    }
    return out;
  }
}
