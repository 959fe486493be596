package dev.portcullis.bench.jmh;

import dev.portcullis.bench.PdpLoad;
import dev.portcullis.cops.Bytes;
import dev.portcullis.cops.CopsCodec;
import dev.portcullis.cops.CopsCodecException;
import dev.portcullis.cops.Request;
import dev.portcullis.cops.access.AccessRequest;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding an access request from its ClientSI, the largest share of a pipelined decision's Java
 * time in every profile of the PDP (docs/benchmarks.md): the request of {@code PdpLoad} and {@code
 * PdpAb}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class AccessRequestBenchmark {
  private Bytes clientSi;

  @Setup
  public void setUp() throws Exception {
    byte[] req = PdpLoad.request(0);
    clientSi =
        ((Request) CopsCodec.decode(Unpooled.wrappedBuffer(req), req.length).message())
            .signaledData("the access request");
  }

  @Benchmark
  public AccessRequest decode() throws CopsCodecException {
    return AccessRequest.decode(clientSi);
  }
}
