package dev.portcullis.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.portcullis.support.ConfigException;
import dev.portcullis.support.DurableFiles;
import dev.portcullis.support.XmlConfigReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/** {@code <state>}: what it accepts, what it refuses and how it says so, and its secret files. */
class StateConfigTest {
  @TempDir Path dir;

  StateConfig parse(String attributes) throws Exception {
    Path f = dir.resolve("x.xml");
    Files.writeString(f, "<x><state " + attributes + "/></x>");
    Element root =
        XmlConfigReader.forSchema(StateConfigTest.class, "/dev/portcullis/state/state-test.xsd")
            .read(f);
    return StateConfig.parse(XmlConfigReader.child(root, "state"), dir);
  }

  @Test
  void zookeeperSettingsAreReadAndCheckedWithTheirPlace() throws Exception {
    DurableFiles.write(dir.resolve("id"), "fleet:pw\n".getBytes(StandardCharsets.US_ASCII));
    StateConfig c =
        parse(
            "store=\"zookeeper\" connect=\"zk1:2181,zk2:2181\" namespace=\"/portcullis/lab\""
                + " session-timeout=\"PT20S\" auth-file=\"id\"");
    assertTrue(c.zookeeper());
    assertEquals("zk1:2181,zk2:2181", c.connect());
    assertEquals(Duration.ofSeconds(20), c.sessionTimeout());
    for (String bad :
        new String[] {
          "store=\"etcd\"",
          "store=\"zookeeper\" connect=\"zk 1\" namespace=\"/a\" auth-file=\"id\"",
          "store=\"zookeeper\" connect=\"zk:2181\" namespace=\"/\" auth-file=\"id\"",
          "store=\"zookeeper\" connect=\"zk:2181\" namespace=\"a/b\" auth-file=\"id\"",
          "store=\"zookeeper\" connect=\"zk:2181\" namespace=\"/a\" auth-file=\"id\""
              + " session-timeout=\"PT1S\"",
          "store=\"zookeeper\" connect=\"zk:2181\" namespace=\"/a\" auth-file=\"missing\""
        }) {
      ConfigException e = assertThrows(ConfigException.class, () -> parse(bad), bad);
      assertTrue(e.getMessage().contains("x.xml:1"), e.getMessage());
    }
  }

  @Test
  void secretFilesMustBeOwnerOnlyAndWellFormed() throws Exception {
    byte[] kek = new byte[32];
    kek[0] = 7;
    DurableFiles.write(
        dir.resolve("kek.hex"),
        (HexFormat.of().formatHex(kek) + "\n").getBytes(StandardCharsets.US_ASCII));
    StateConfig c = parse("store=\"embedded\" kek-file=\"kek.hex\"");
    assertArrayEquals(kek, c.kek());
    Files.setPosixFilePermissions(
        dir.resolve("kek.hex"), PosixFilePermissions.fromString("rw-r--r--"));
    StoreException open = assertThrows(StoreException.class, c::kek);
    assertTrue(open.getMessage().contains("kek.hex") && open.getMessage().contains("chmod 600"));
    DurableFiles.write(dir.resolve("kek.hex"), "not a key".getBytes(StandardCharsets.US_ASCII));
    StoreException bad = assertThrows(StoreException.class, c::kek);
    assertFalse(bad.getMessage().contains("not a key"), "the content is never shown");
    StoreException none = assertThrows(StoreException.class, parse("store=\"embedded\"")::kek);
    assertTrue(none.getMessage().contains("no kek-file"), none.getMessage());
  }
}
