package dev.portcullis.crypto;

import dev.portcullis.crypto.algorithm.Algorithm;
import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.support.ConfigException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses a JCA provider per algorithm from a {@link CryptoConfig}, admits each only after its
 * known-answer tests, pre-warms the choices, and hands out ready, keyed engines ({@link MacKey},
 * {@link CipherKey}, {@link Digester}) that follow the table in force.
 *
 * <p>The table is immutable and published atomically: {@link #reconfigure} (or the file watch)
 * builds and tests a new one while the old one keeps serving, then swaps it in. A configuration
 * that fails validation or leaves an algorithm without a provider is rejected and the running table
 * stays.
 */
public final class CryptoRegistry implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CryptoRegistry.class);

  private final ProviderDirectory directory;
  private final TableBuilder builder;
  private final Object switchLock = new Object();
  private final CopyOnWriteArrayList<Consumer<ProviderTable>> listeners =
      new CopyOnWriteArrayList<>();
  private volatile ProviderTable table;
  private volatile String lastRejection;
  private volatile ConfigWatcher watcher;
  private final Path configFile;
  // One supplier for every handle: a method reference made per call would cost an invokedynamic
  // link on the first packet, which is exactly the first-use latency pre-warming removes.
  private final Supplier<ProviderTable> tables = this::table;

  private CryptoRegistry(ProviderDirectory directory, Clock clock, Path configFile) {
    this.directory = directory;
    this.builder = new TableBuilder(directory, clock);
    this.configFile = configFile;
  }

  /**
   * Opens a registry from a configuration file, with the providers found on the class path; starts
   * watching the file if the configuration says {@code watch="true"}.
   *
   * @throws ConfigException if the file is invalid or an algorithm has no usable provider
   */
  public static CryptoRegistry open(Path configFile) throws ConfigException {
    return open(configFile, ProviderDirectory.discover());
  }

  /** As {@link #open(Path)}, with the given providers. */
  public static CryptoRegistry open(Path configFile, ProviderDirectory directory)
      throws ConfigException {
    CryptoConfig config = CryptoConfig.load(configFile);
    CryptoRegistry r = new CryptoRegistry(directory, Clock.systemUTC(), configFile);
    r.publish(config);
    if (config.watch()) {
      r.watch(configFile);
    }
    return r;
  }

  /** A registry for a configuration built in code, with the providers found on the class path. */
  public static CryptoRegistry create(CryptoConfig config) throws ConfigException {
    return create(config, ProviderDirectory.discover());
  }

  /** A registry for a configuration built in code, with the given providers. */
  public static CryptoRegistry create(CryptoConfig config, ProviderDirectory directory)
      throws ConfigException {
    CryptoRegistry r = new CryptoRegistry(directory, Clock.systemUTC(), null);
    r.publish(config);
    return r;
  }

  /** The table in force. Hot-path handles read this once per operation. */
  public ProviderTable table() {
    return table;
  }

  public ProviderDirectory directory() {
    return directory;
  }

  /**
   * Builds, tests and pre-warms a table for {@code config} and publishes it. Work in flight
   * finishes on the old table; operations that start after this returns use the new one.
   *
   * @throws ConfigException if an algorithm is left without a provider; the old table stays in
   *     force
   */
  public void reconfigure(CryptoConfig config) throws ConfigException {
    Objects.requireNonNull(config, "config");
    publish(config);
  }

  /**
   * Reads the configuration file this registry was opened with again and publishes it.
   *
   * @throws IllegalStateException if the registry was not opened from a file
   * @throws ConfigException if the file is invalid; the old table stays in force
   */
  public void reload() throws ConfigException {
    if (configFile == null) {
      throw new IllegalStateException("registry was not opened from a file: nothing to reload");
    }
    publish(CryptoConfig.load(configFile));
  }

  /**
   * Watches a configuration file and publishes it whenever its contents change; a rejected version
   * is logged once and the running table stays. Replaces any earlier watch.
   */
  public void watch(Path file) {
    ConfigWatcher w = new ConfigWatcher(this, file, table.config().watchInterval());
    ConfigWatcher old = watcher;
    watcher = w;
    if (old != null) {
      old.close();
    }
    w.start();
  }

  /** Called with every table published after this call. */
  public void addListener(Consumer<ProviderTable> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  private void publish(CryptoConfig config) throws ConfigException {
    synchronized (switchLock) {
      long gen = table == null ? 1 : table.generation() + 1;
      long start = System.nanoTime();
      ProviderTable next;
      try {
        next = builder.build(config, gen);
      } catch (ConfigException e) {
        rejected(e);
        throw e;
      }
      if (config.prewarm()) {
        Prewarmer.warm(next);
      }
      ProviderTable previous = table;
      table = next;
      lastRejection = null;
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      if (previous == null) {
        if (log.isInfoEnabled()) {
          // One log line per row: log lines never carry line breaks (the CLIs mask them).
          log.info("crypto provider table published in {} ms:", ms);
          status().format().lines().forEach(row -> log.info("  {}", row));
        }
      } else {
        log.info(
            "crypto provider table switched from generation {} to {} in {} ms: {}",
            previous.generation(),
            next.generation(),
            ms,
            changes(previous, next));
      }
      for (Consumer<ProviderTable> l : listeners) {
        try {
          l.accept(next);
        } catch (RuntimeException e) {
          log.warn("crypto table listener failed: {}", e.toString());
        }
      }
    }
  }

  void rejected(ConfigException e) {
    lastRejection = e.getMessage();
    if (table != null) {
      log.warn(
          "crypto configuration rejected, generation {} stays in force: {}",
          table.generation(),
          e.getMessage());
    }
  }

  private static String changes(ProviderTable from, ProviderTable to) {
    StringBuilder sb = new StringBuilder();
    for (Algorithm a : Algorithm.values()) {
      Selection x = from.selections().get(a);
      Selection y = to.selections().get(a);
      String xn = x == null ? "disabled" : x.providerName();
      String yn = y == null ? "disabled" : y.providerName();
      if (!xn.equals(yn)) {
        sb.append(sb.length() == 0 ? "" : ", ")
            .append(a)
            .append(' ')
            .append(xn)
            .append(" -> ")
            .append(yn);
      }
    }
    return sb.length() == 0 ? "no provider changed" : sb.toString();
  }

  /** A snapshot for operators: the table, the reasons, the operation counts. */
  public RegistryStatus status() {
    Map<Algorithm, Map<String, Long>> ops = new EnumMap<>(Algorithm.class);
    for (Algorithm a : Algorithm.values()) {
      ops.put(a, builder.operationCounts(a));
    }
    return new RegistryStatus(table, ops, lastRejection, directory.discoveryProblems());
  }

  /**
   * One line for a component's log: the table's generation and origin, and which provider serves
   * each algorithm now (the status table says why the others were passed over).
   */
  public String summary() {
    ProviderTable t = table;
    StringBuilder sb =
        new StringBuilder("generation ")
            .append(t.generation())
            .append(" from ")
            .append(t.config().source())
            .append(':');
    t.selections()
        .forEach(
            (a, sel) -> sb.append(' ').append(a.jcaName()).append('=').append(sel.providerName()));
    return sb.toString();
  }

  /** The configuration name of the provider serving {@code algorithm} now. */
  public String providerFor(Algorithm algorithm) {
    return table.selection(algorithm).providerName();
  }

  // ---- hot path ------------------------------------------------------------------------------

  /**
   * A MAC handle for {@code key}. The key bytes are copied; wipe your array if you like.
   *
   * @throws DisabledAlgorithmException if {@code algorithm} is a legacy algorithm not enabled
   */
  public MacKey macKey(Algorithm algorithm, byte[] key) {
    return new MacKey(algorithm, key, 0, key.length, tables);
  }

  /** A MAC handle for {@code key[off, off+len)}. */
  public MacKey macKey(Algorithm algorithm, byte[] key, int off, int len) {
    return new MacKey(algorithm, key, off, len, tables);
  }

  /** An AES handle for {@code key} (16, 24 or 32 bytes) in the given mode. */
  public CipherKey cipherKey(Algorithm algorithm, byte[] key) {
    return new CipherKey(algorithm, key, 0, key.length, tables);
  }

  /** A digest handle. */
  public Digester digester(Algorithm algorithm) {
    return new Digester(algorithm, tables);
  }

  // ---- plain JCA objects, for code that needs the engine itself -----------------------------

  /** A new, unkeyed {@link Mac} from the provider serving {@code algorithm} now. */
  public Mac newMac(Algorithm algorithm) throws GeneralSecurityException {
    return Mac.getInstance(algorithm.jcaName(), table.selection(algorithm).provider());
  }

  /** A new, uninitialised {@link Cipher} from the provider serving {@code algorithm} now. */
  public Cipher newCipher(Algorithm algorithm) throws GeneralSecurityException {
    return Cipher.getInstance(algorithm.jcaName(), table.selection(algorithm).provider());
  }

  /** A new {@link MessageDigest} from the provider serving {@code algorithm} now. */
  public MessageDigest newMessageDigest(Algorithm algorithm) throws GeneralSecurityException {
    return MessageDigest.getInstance(algorithm.jcaName(), table.selection(algorithm).provider());
  }

  /** Stops the file watch, if any. Handles keep working on the last table. */
  @Override
  public void close() {
    ConfigWatcher w = watcher;
    watcher = null;
    if (w != null) {
      w.close();
    }
  }
}
