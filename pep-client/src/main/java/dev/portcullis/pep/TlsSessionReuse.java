package dev.portcullis.pep;

import dev.portcullis.cops.ErrorCode;
import dev.portcullis.cops.tls.CopsTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PEP's TLS context and its session-reuse policy ({@code <session-reuse max-age max-uses>}):
 * the cached session is offered again while the policy allows; once it is spent, the next handshake
 * is a full one. Counts full and resumed handshakes. Event loop only, but for the counts.
 *
 * <p>Client session caches are keyed by the peer's host and port as given to the engine. The port
 * given is the PDP's plus 65536 times the session line number (the engines use it only as that
 * key), so a new line finds nothing cached. Making a new client context would do the same at 20 to
 * 100 ms a time (measured); this costs nothing. Lines repeat after 32768, by when a session of the
 * first is long past any {@code max-age} worth setting.
 */
final class TlsSessionReuse implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TlsSessionReuse.class);

  private final PepSecurity security;
  private final String pepId;
  private final LongSupplier clock;
  private final AtomicLong full = new AtomicLong();
  private final AtomicLong resumed = new AtomicLong();
  private CopsTls tls;
  private long lineStarted;
  private int resumptions;
  private int line;

  /**
   * @param clock nanoseconds
   */
  TlsSessionReuse(PepSecurity security, String pepId, LongSupplier clock) {
    this.security = security;
    this.pepId = pepId;
    this.clock = clock;
  }

  /**
   * Before a connection: makes the context on first use, or moves to a new session line once the
   * current one is spent.
   *
   * @throws PepException (error 8, client failure) if the PEP's own certificate, key or trust file
   *     cannot be used: the reason, never a trace and a timeout
   */
  void prepare() throws PepException {
    if (tls == null) {
      try {
        tls = security.newTls();
      } catch (Exception e) {
        // Netty reports a missing or unreadable file as IllegalArgumentException.
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
          root = root.getCause();
        }
        throw new PepException(
            ErrorCode.CLIENT_FAILURE.code(),
            0,
            "TLS unusable: "
                + root.getMessage()
                + (security.certificate() != null && !Files.exists(security.certificate())
                    ? " (a PEP's own certificate and key are written by pep-client enrol)"
                    : ""));
      }
      lineStarted = clock.getAsLong();
      return;
    }
    PepSecurity.SessionReuse reuse = security.sessionReuse();
    long age = clock.getAsLong() - lineStarted;
    if (resumptions >= reuse.maxUses() || age > reuse.maxAge().toNanos()) {
      log.debug(
          "PEP {}: TLS session resumed {} times over {} ms; the next handshake is a full one",
          pepId,
          resumptions,
          age / 1_000_000);
      line = (line + 1) % 32768;
      resumptions = 0;
      lineStarted = clock.getAsLong();
    }
  }

  /** The handler that starts the client handshake with {@code pdp} on the current line. */
  SslHandler clientHandler(ByteBufAllocator alloc, InetSocketAddress pdp) {
    return tls.newClientHandler(alloc, pdp.getHostString(), pdp.getPort() + (line << 16));
  }

  /** Describes a finished handshake and counts it against the policy. */
  CopsTls.Handshake established(SslHandler h) {
    CopsTls.Handshake d = tls.describe(h);
    if (Boolean.TRUE.equals(d.resumed())) {
      resumptions++;
      resumed.incrementAndGet();
    } else {
      lineStarted = clock.getAsLong();
      resumptions = 0;
      full.incrementAndGet();
    }
    return d;
  }

  long fullHandshakes() {
    return full.get();
  }

  long resumedHandshakes() {
    return resumed.get();
  }

  @Override
  public void close() {
    if (tls != null) {
      tls.close();
    }
  }
}
