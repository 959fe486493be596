package dev.portcullis.pdp;

import dev.portcullis.state.Ensembles;
import dev.portcullis.state.StoreException;
import dev.portcullis.state.ZooKeeperStateStore;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real 3-node ZooKeeper ensemble on loopback for this module's fleet tests, started on first
 * use and stopped when the test JVM exits; each test takes its own namespace.
 *
 * <p>A fleet test class is {@code @ExtendWith(FleetEnsemble.class)}: the ensemble starts before its
 * first test, not inside it, so the time a start takes (up to three attempts on new ports, {@link
 * Ensembles#started}) is not charged to one test's time limit, and a start that fails is reported
 * as that and not as a test that hung.
 */
final class FleetEnsemble implements BeforeAllCallback {
  static final String IDENTITY = "portcullis:fleet-test-secret";
  private static final AtomicInteger NAMESPACES = new AtomicInteger();
  private static TestingCluster cluster;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    connectString();
  }

  static synchronized String connectString() throws Exception {
    if (cluster == null) {
      TestingCluster c = Ensembles.started();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      c.close();
                    } catch (Exception e) {
                      // the JVM is going anyway
                    }
                  }));
      cluster = c;
    }
    return cluster.getConnectString();
  }

  /** A namespace no other test uses. */
  static String namespace() {
    return "/portcullis/fleet" + NAMESPACES.incrementAndGet();
  }

  /** A member's store in {@code namespace}. */
  static ZooKeeperStateStore member(String namespace) throws Exception, StoreException {
    return ZooKeeperStateStore.connect(
        new ZooKeeperStateStore.Settings(
            connectString(), namespace, Duration.ofSeconds(6), IDENTITY));
  }
}
