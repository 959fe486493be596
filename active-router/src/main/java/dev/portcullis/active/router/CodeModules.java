package dev.portcullis.active.router;

import dev.portcullis.active.code.CodeServerClient;
import dev.portcullis.active.code.ModuleLoader;
import dev.portcullis.active.config.RosaConfig;
import dev.portcullis.active.service.ActiveService;
import dev.portcullis.active.verify.CodeSource;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The codes a router runs, as its verifier's {@link CodeSource}: only the codes configured for this
 * router; a code's secrets and announced epochs come from the Code Server, and its first secret
 * also brings its module, checked and loaded (once; a refused module lets a later packet try
 * again).
 */
final class CodeModules implements CodeSource {
  private static final Logger log = LoggerFactory.getLogger(CodeModules.class);

  private final String router;
  private final RosaConfig domain;
  private final RosaConfig.Router config;
  private final CodeServerClient codeServer;
  private final Map<Integer, ActiveService> services = new ConcurrentHashMap<>();
  private final Map<Integer, CompletableFuture<ActiveService>> loading = new ConcurrentHashMap<>();

  CodeModules(RosaConfig domain, RosaConfig.Router config, CodeServerClient codeServer) {
    this.router = config.id();
    this.domain = domain;
    this.config = config;
    this.codeServer = codeServer;
  }

  /** The loaded service of a code, or null. */
  ActiveService service(int code) {
    return services.get(code);
  }

  /** The configured code with this number, if this router runs it; null otherwise. */
  private RosaConfig.Code ours(int code) {
    RosaConfig.Code c = domain.code(code);
    return c != null && config.codes().contains(c.name()) ? c : null;
  }

  private static UnknownCodeException notOurs(int code) {
    return new UnknownCodeException(
        "code " + Integer.toUnsignedString(code) + " is not one this router runs");
  }

  @Override
  public boolean knows(int code) {
    return ours(code) != null;
  }

  @Override
  public CompletableFuture<int[]> epochs(int code) {
    if (ours(code) == null) {
      return CompletableFuture.failedFuture(notOurs(code)); // no request for it
    }
    return codeServer.epochs(code);
  }

  /** The secret, and the code's module if not yet loaded: completes when both are there. */
  @Override
  public CompletableFuture<byte[]> secret(int code, int epoch) {
    RosaConfig.Code c = ours(code);
    if (c == null) {
      return CompletableFuture.failedFuture(notOurs(code));
    }
    ActiveService loaded = services.get(code);
    CompletableFuture<ActiveService> service =
        loaded != null
            ? CompletableFuture.completedFuture(loaded)
            : loading.computeIfAbsent(code, x -> load(c));
    return codeServer.secret(code, epoch).thenCombine(service, (kci, s) -> kci);
  }

  private CompletableFuture<ActiveService> load(RosaConfig.Code c) {
    return codeServer
        .module(c.id())
        .thenApply(
            m -> {
              try {
                ActiveService s = ModuleLoader.load(m.jar(), m.server(), "code " + c.name());
                s.configure(c.settings());
                services.put(c.id(), s);
                log.info(
                    "router {}: loaded code {} ({} bytes, signature verified)",
                    router,
                    c.name(),
                    m.jar().length);
                return s;
              } catch (ModuleLoader.RejectedModuleException | RuntimeException e) {
                log.error(
                    "router {}: refused the module of code {}: {}",
                    router,
                    c.name(),
                    e.getMessage());
                throw new CompletionException(e);
              }
            })
        .whenComplete(
            (s, e) -> {
              if (e != null) {
                loading.remove(c.id()); // let a later packet try again
              }
            });
  }
}
