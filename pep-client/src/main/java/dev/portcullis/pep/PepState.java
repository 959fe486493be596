package dev.portcullis.pep;

import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.ClientSI;
import dev.portcullis.cops.Context;
import dev.portcullis.cops.DeleteRequest;
import dev.portcullis.cops.Handle;
import dev.portcullis.cops.Reason;
import dev.portcullis.cops.ReasonCode;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessRequest;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundInvoker;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a {@link PepClient} knows across its connections: the requests waiting for decisions, the
 * installed requests and their decisions (sent again after a reconnect or a synchronize request),
 * the current channel, and where opening stands. Event loop only, so it needs no locks.
 */
final class PepState {
  record Pending(CompletableFuture<PepDecision> future, ScheduledFuture<?> timeout) {}

  record Installed(Context context, AccessRequest request, PepDecision decision) {}

  final String pepId;
  final int clientType;
  final PepListener listener;
  final PepSecurity security;
  final EventLoop loop;
  final Duration requestTimeout;
  final ReconnectPolicy route;
  final Map<String, Pending> pending = new HashMap<>();
  final Map<String, Installed> installed = new LinkedHashMap<>();

  /** The current connection; null between connections and while a redirected one closes. */
  Channel channel;

  /** The PDP that last accepted this PEP, for the next Client-Open's Last PDP Address. */
  InetSocketAddress lastPdp;

  /** The caller waiting for open() or reconnect(), if any. */
  CompletableFuture<Void> opening;

  /** The last connection error, to explain a close while opening. */
  Throwable lastError;

  volatile boolean accepted;

  /** The Accounting timer of the last Client-Accept, in seconds (0: no reports asked for). */
  volatile int accountingSeconds;

  /** Set once the caller closed or was told opening failed: no silent reconnects. */
  boolean closing;

  /** TLS is established on the current connection. */
  boolean tlsUp;

  PepState(
      String pepId,
      int clientType,
      PepListener listener,
      PepSecurity security,
      EventLoop loop,
      Duration requestTimeout,
      ReconnectPolicy route) {
    this.pepId = pepId;
    this.clientType = clientType;
    this.listener = listener;
    this.security = security;
    this.loop = loop;
    this.requestTimeout = requestTimeout;
    this.route = route;
  }

  /** True if this PEP speaks TLS. */
  boolean tls() {
    return security != null && security.tls() != null;
  }

  /** Tells the caller waiting for open() why it failed; after that, nothing reconnects. */
  void failOpening(PepException e) {
    if (opening != null) {
      opening.completeExceptionally(e);
      opening = null;
      closing = true;
    }
  }

  /**
   * Registers {@code f} as the pending decision of {@code handle}, with its timeout; or fails it
   * (not open, or a decision already pending) and returns false.
   */
  boolean admit(String handle, CompletableFuture<PepDecision> f) {
    if (!accepted) {
      f.completeExceptionally(new PepException(0, 0, "not open: call open() and wait for it"));
      return false;
    }
    if (pending.containsKey(handle)) {
      f.completeExceptionally(
          new IllegalStateException(
              "handle " + handle + " already has a request waiting for its decision"));
      return false;
    }
    pending.put(
        handle,
        new Pending(
            f,
            loop.schedule(
                () -> timedOut(handle), requestTimeout.toMillis(), TimeUnit.MILLISECONDS)));
    return true;
  }

  void failAll(PepException e) {
    for (Pending p : pending.values()) {
      p.timeout().cancel(false);
      p.future().completeExceptionally(e);
    }
    pending.clear();
  }

  private void timedOut(String handle) {
    Pending p = pending.remove(handle);
    if (p == null) {
      return;
    }
    installed.remove(handle);
    p.future()
        .completeExceptionally(
            new TimeoutException("no decision for " + handle + " within " + requestTimeout));
    if (accepted) {
      // RFC 2748 section 4.3: a timed-out handle is deleted; the PEP may retry with a new one.
      channel.writeAndFlush(
          new DeleteRequest(
              clientType, false, handle(handle), new Reason(ReasonCode.TIMEOUT), null));
    }
  }

  Request requestMessage(String handle, Context context, ClientSI si, boolean solicited) {
    return new Request(
        clientType, solicited, handle(handle), context, null, null, List.of(si), null, null);
  }

  /**
   * Writes the installed requests again ({@code only} one, or all when null) without flushing:
   * after a reconnect, unsolicited; in answer to a synchronize request, solicited.
   */
  void resend(ChannelOutboundInvoker out, Handle only, boolean solicited) {
    installed.forEach(
        (h, i) -> {
          if (only == null || handle(only).equals(h)) {
            out.write(requestMessage(h, i.context(), i.request().toClientSI(), solicited));
          }
        });
  }

  static Handle handle(String h) {
    return new Handle(Bytes.of(h.getBytes(StandardCharsets.UTF_8)));
  }

  static String handle(Handle h) {
    return new String(h.value().toArray(), StandardCharsets.UTF_8);
  }
}
