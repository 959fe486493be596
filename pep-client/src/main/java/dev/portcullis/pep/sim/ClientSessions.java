package dev.portcullis.pep.sim;

import dev.portcullis.cops.Context;
import dev.portcullis.cops.access.AccessRequest;
import dev.portcullis.pep.PepClient;
import dev.portcullis.support.Transport;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * The simulator's sessions made with the PEP client itself, for a PDP that takes TLS or Integrity
 * (what {@code pep.xml} configures): each session a new client that opens (TCP connect, RFC 4261's
 * client-type-0 exchange and TLS handshake when configured, resumed after the first with session
 * reuse on, then OPN and CAT), asks one REQ/DEC and closes (CC). The TCP connect is not timed apart
 * from the open: the client does not expose it.
 */
public final class ClientSessions {
  private ClientSessions() {}

  /**
   * Runs {@code sessions} sessions, {@code concurrency} at a time, each client from {@code builder}
   * (already given its PDP, client type and security) with PEP id {@code sim-pep-N}.
   */
  public static Simulator.Result run(
      Supplier<PepClient.Builder> builder,
      int sessions,
      int concurrency,
      long timeoutSeconds,
      IntConsumer progress)
      throws InterruptedException {
    long[] open = new long[sessions];
    long[] request = new long[sessions];
    long[] whole = new long[sessions];
    AtomicInteger next = new AtomicInteger();
    AtomicInteger ok = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    AtomicReference<String> first = new AtomicReference<>();
    EventLoopGroup loops = Transport.best().group(1);
    ExecutorService callers = Executors.newFixedThreadPool(concurrency);
    AccessRequest ar = Simulator.request(0);
    try {
      Future<?>[] workers = new Future<?>[concurrency];
      for (int w = 0; w < concurrency; w++) {
        workers[w] =
            callers.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < sessions; i = next.getAndIncrement()) {
                    long t0 = System.nanoTime();
                    PepClient pep =
                        builder
                            .get()
                            .eventLoop(loops.next())
                            .requestTimeout(Duration.ofSeconds(timeoutSeconds))
                            .build();
                    try {
                      pep.open().get(timeoutSeconds, TimeUnit.SECONDS);
                      long t1 = System.nanoTime();
                      pep.request("sim", new Context(Context.R_INCOMING, 0), ar)
                          .get(timeoutSeconds, TimeUnit.SECONDS);
                      long t2 = System.nanoTime();
                      pep.close(); // Client-Close: part of the session's time
                      long t3 = System.nanoTime();
                      int k = ok.getAndIncrement();
                      open[k] = t1 - t0;
                      request[k] = t2 - t1;
                      whole[k] = t3 - t0;
                    } catch (Exception e) {
                      pep.close();
                      failures.incrementAndGet();
                      Throwable c =
                          e instanceof ExecutionException && e.getCause() != null
                              ? e.getCause()
                              : e;
                      first.compareAndSet(
                          null, c.getMessage() == null ? c.toString() : c.getMessage());
                    }
                    progress.accept(1);
                  }
                });
      }
      for (Future<?> f : workers) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException(e.getCause());
        }
      }
    } finally {
      callers.shutdownNow();
      loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
    int n = ok.get();
    return new Simulator.Result(
        null,
        new SessionTimes("connect, TLS, OPN -> CAT", Arrays.copyOf(open, n)),
        new SessionTimes("REQ -> DEC", Arrays.copyOf(request, n)),
        new SessionTimes("whole session", Arrays.copyOf(whole, n)),
        failures.get(),
        first.get());
  }
}
