package dev.portcullis.bench.jmh;

import dev.portcullis.bench.CopsLayers;
import dev.portcullis.cops.Context;
import dev.portcullis.pdp.policy.PolicyDecision;
import dev.portcullis.pdp.policy.PolicyEngine;
import dev.portcullis.pdp.policy.PolicyEngineProvider;
import dev.portcullis.pdp.policy.PolicyRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a decision costs each policy engine, with the sample policies ({@code config/}): the rules
 * engine on an ssh request, the multilevel engine (Bell-LaPadula) on a read of a SECRET service.
 * The engine alone, without COPS around it; the cost-of-security harness has it with COPS.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Thread)
public class PolicyEngineBenchmark {
  @Param({"rules", "mls"})
  public String engine;

  private PolicyEngine policy;
  private PolicyRequest request;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    Path dir = Files.isDirectory(Path.of("config")) ? Path.of("config") : Path.of("..", "config");
    for (PolicyEngineProvider p : ServiceLoader.load(PolicyEngineProvider.class)) {
      if (p.name().equals(engine)) {
        policy = p.load(dir.resolve("policy-" + engine + ".xml"), null);
      }
    }
    if (policy == null) {
      throw new IllegalStateException("no policy engine named " + engine);
    }
    boolean mls = engine.equals("mls");
    request =
        new PolicyRequest(
            "bench",
            mls ? CopsLayers.MLS : CopsLayers.RULES,
            Context.R_INCOMING,
            0,
            mls ? CopsLayers.mlsRequest() : CopsLayers.rulesRequest());
  }

  @Benchmark
  public PolicyDecision decide() {
    return policy.decide(request);
  }
}
