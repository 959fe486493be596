package dev.portcullis.state;

import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.util.ServiceUtils;

/**
 * Real 3-node ZooKeeper ensembles on loopback for the tests of every module (this module's test
 * jar), started until each member serves.
 *
 * <p>Curator's test cluster picks its ports by binding port 0 and letting go, so in a long build
 * another socket can take one before the member binds it; ZooKeeper then asks the JVM to exit
 * (status 14), which ended a whole test fork and failed every fleet test after it. Here such an
 * exit is only logged, and an ensemble whose members do not all serve is closed and started again
 * on new ports.
 */
public final class Ensembles {
  private static final int ATTEMPTS = 3;

  static {
    ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
  }

  private Ensembles() {}

  /** A started 3-node ensemble whose every member answers; the caller closes it. */
  public static TestingCluster started() throws Exception {
    Exception last = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      TestingCluster c = null;
      try {
        // Its constructor picks the ports, each on its own: two members can be given the same
        // one (IllegalArgumentException: "Multiple entries with same key"), seen in a full build.
        c = new TestingCluster(3);
        c.start();
        ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY); // start set it back to exit
        if (allServe(c)) {
          return c;
        }
      } catch (Exception e) {
        last = e;
      }
      if (c != null) {
        c.close();
      }
    }
    throw new IllegalStateException(
        "no 3-node ZooKeeper ensemble served in " + ATTEMPTS + " attempts", last);
  }

  /**
   * Restarts a killed member. Each (re)start of a member resets ZooKeeper's exit procedure to
   * exiting the JVM (its embedded server sets it on start), and a member that cannot bind a port it
   * had (its killed predecessor still holding it) asks the JVM to exit with status 14, which ended
   * a whole test fork (seen under .ci/run): the procedure is made log-only again here.
   */
  public static void restart(TestingCluster c, InstanceSpec member) throws Exception {
    try {
      c.restartServer(member);
    } finally {
      ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
    }
  }

  private static boolean allServe(TestingCluster c) throws InterruptedException {
    for (InstanceSpec s : c.getInstances()) {
      try (CuratorFramework one =
          CuratorFrameworkFactory.newClient(
              "127.0.0.1:" + s.getPort(), 10_000, 10_000, new RetryOneTime(100))) {
        one.start();
        if (!one.blockUntilConnected(15, TimeUnit.SECONDS)) {
          return false;
        }
        one.checkExists().forPath("/");
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        return false;
      }
    }
    return true;
  }
}
