package dev.portcullis.pdp.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.cops.access.AccessMode;
import dev.portcullis.cops.access.AccessOperation;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pdp.policy.mls.MlsEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every combination of session label and service label (3 levels x 4 category sets each), for read,
 * write and read-write, under Bell-LaPadula and Biba, through the engine's COPS-facing decide():
 * the answer must equal the model's definition written out independently here.
 */
class MlsTruthTableTest {
  static final String[] LEVELS = {"U", "C", "S"};
  static final List<Set<String>> CATS =
      List.of(Set.of(), Set.of("A"), Set.of("B"), Set.of("A", "B"));

  static String cats(Set<String> c) {
    return String.join(" ", new TreeSet<>(c));
  }

  /** Independent definitions: dominance, then each model's rule. */
  static boolean dominates(int r1, Set<String> c1, int r2, Set<String> c2) {
    return r1 >= r2 && c1.containsAll(c2);
  }

  static boolean expected(
      String model, AccessMode mode, int sr, Set<String> sc, int or, Set<String> oc) {
    boolean read;
    boolean write;
    if (model.equals("blp")) {
      read = dominates(sr, sc, or, oc); // simple security: no read up
      write = dominates(or, oc, sr, sc); // *-property: no write down
    } else {
      read = dominates(or, oc, sr, sc); // simple integrity: no read down
      write = dominates(sr, sc, or, oc); // integrity *-property: no write up
    }
    switch (mode) {
      case READ:
        return read;
      case WRITE:
        return write;
      default:
        return read && write;
    }
  }

  @Test
  void everyLabelPairModeAndModel(@TempDir Path dir) throws Exception {
    StringBuilder xml = new StringBuilder("<mls><levels>");
    for (int i = 0; i < LEVELS.length; i++) {
      xml.append("<level name=\"").append(LEVELS[i]).append("\" rank=\"").append(i).append("\"/>");
    }
    xml.append("</levels><categories><category name=\"A\"/><category name=\"B\"/></categories>");
    xml.append("<subject name=\"s\" min=\"U\" max=\"S\" categories=\"A B\"/>");
    List<String> services = new ArrayList<>();
    for (String model : List.of("blp", "biba")) {
      for (int l = 0; l < LEVELS.length; l++) {
        for (int c = 0; c < CATS.size(); c++) {
          String name = model + "-" + l + "-" + c;
          services.add(name);
          xml.append("<service name=\"")
              .append(name)
              .append("\" level=\"")
              .append(LEVELS[l])
              .append("\" categories=\"")
              .append(cats(CATS.get(c)))
              .append("\" model=\"")
              .append(model)
              .append("\"/>");
        }
      }
    }
    xml.append("</mls>");
    Path f = dir.resolve("mls.xml");
    Files.writeString(f, xml);
    MlsEngine engine = MlsEngine.load(f);

    int checked = 0;
    for (int sl = 0; sl < LEVELS.length; sl++) {
      for (Set<String> sc : CATS) {
        PolicyRequest login =
            new PolicyRequest(
                "pep",
                1,
                1,
                0,
                new AccessRequest(
                    AccessOperation.LOGIN,
                    "s",
                    sl,
                    new ArrayList<>(sc),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null));
        assertTrue(engine.decide(login).install(), "login at " + sl + sc);
        for (String svc : services) {
          String[] p = svc.split("-");
          int ol = Integer.parseInt(p[1]);
          Set<String> oc = CATS.get(Integer.parseInt(p[2]));
          for (AccessMode mode : AccessMode.values()) {
            PolicyRequest access =
                new PolicyRequest(
                    "pep",
                    1,
                    1,
                    0,
                    new AccessRequest(
                        AccessOperation.ACCESS,
                        "s",
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        svc,
                        mode,
                        null,
                        null));
            boolean got = engine.decide(access).install();
            assertEquals(
                expected(p[0], mode, sl, sc, ol, oc),
                got,
                p[0] + " " + mode + " session " + LEVELS[sl] + sc + " service " + LEVELS[ol] + oc);
            checked++;
          }
        }
      }
    }
    assertEquals(12 * 24 * 3, checked);
  }

  @Test
  void clearanceAndSessionsAreEnforced(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("mls.xml");
    Files.writeString(
        f,
        "<mls><levels><level name=\"U\" rank=\"0\"/><level name=\"S\" rank=\"2\"/></levels>"
            + "<categories><category name=\"A\"/></categories>"
            + "<subject name=\"s\" min=\"U\" max=\"U\"/>"
            + "<service name=\"x\" level=\"U\"/></mls>");
    MlsEngine e = MlsEngine.load(f);
    PolicyDecision tooHigh = e.decide(req(AccessOperation.LOGIN, "s", 2, List.of()));
    assertFalse(tooHigh.install());
    assertTrue(tooHigh.data().reason().contains("outside clearance"), tooHigh.data().reason());
    assertFalse(
        e.decide(req(AccessOperation.LOGIN, "s", 0, List.of("A"))).install(),
        "category beyond clearance");
    assertFalse(e.decide(req(AccessOperation.LOGIN, "nobody", 0, List.of())).install());
    assertFalse(
        e.decide(req(AccessOperation.LOGIN, "s", 1, List.of())).install(), "rank 1 is not a level");
    PolicyRequest in = req(AccessOperation.LOGIN, "s", 0, List.of());
    assertTrue(e.decide(in).install());
    assertEquals(1, e.sessionCount());
    e.released(in);
    assertEquals(0, e.sessionCount(), "deleting the login's state ends the session");
  }

  static PolicyRequest req(AccessOperation op, String subject, Integer level, List<String> cats) {
    return new PolicyRequest(
        "pep",
        1,
        1,
        0,
        new AccessRequest(
            op, subject, level, cats, null, null, null, null, null, null, null, null, null));
  }
}
