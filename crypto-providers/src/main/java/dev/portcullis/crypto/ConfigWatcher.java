package dev.portcullis.crypto;

import dev.portcullis.crypto.config.CryptoConfig;
import dev.portcullis.support.ConfigException;
import dev.portcullis.support.Threads;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls a configuration file and publishes it when its bytes change.
 *
 * <p>Polling the contents rather than using a {@link java.nio.file.WatchService}: editors and
 * configuration tools replace files by rename, mounted config maps swap symlinks, and both are
 * missed or doubled by directory events; comparing a small file's bytes every couple of seconds is
 * exact and costs nothing.
 */
final class ConfigWatcher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConfigWatcher.class);

  private final CryptoRegistry registry;
  private final Path file;
  private final Duration interval;
  private final ScheduledExecutorService executor;
  private byte[] lastSeen;

  ConfigWatcher(CryptoRegistry registry, Path file, Duration interval) {
    this.registry = registry;
    this.file = file;
    this.interval = interval;
    this.executor = Threads.owner("portcullis-crypto-config-watch");
  }

  void start() {
    lastSeen = read();
    long ms = Math.max(1, interval.toMillis());
    executor.scheduleWithFixedDelay(this::poll, ms, ms, TimeUnit.MILLISECONDS);
    log.info("watching {} for crypto configuration changes every {} ms", file, ms);
  }

  private byte[] read() {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      log.warn("cannot read {}: {}", file, e.toString());
      return lastSeen;
    }
  }

  private void poll() {
    try {
      byte[] now = read();
      if (now == null || now.length == 0 || Arrays.equals(now, lastSeen)) {
        // unchanged, briefly absent while an editor replaces it, or empty while a tool rewrites
        // it in place (truncate, then write): the next poll sees the whole file
        return;
      }
      lastSeen = now; // a rejected version is reported once, not on every poll
      CryptoConfig c;
      try {
        c = CryptoConfig.parse(new ByteArrayInputStream(now), file.toString());
      } catch (ConfigException e) {
        registry.rejected(e);
        return;
      }
      try {
        registry.reconfigure(c);
      } catch (ConfigException e) {
        // reconfigure has logged it and kept the running table
      }
    } catch (RuntimeException e) {
      log.warn("crypto configuration watch of {} failed: {}", file, e.toString());
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
