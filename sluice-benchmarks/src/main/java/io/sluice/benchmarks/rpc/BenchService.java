package io.sluice.benchmarks.rpc;

import com.google.protobuf.ByteString;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Implementation of {@code sluice.bench.Bench} for throughput benchmarks of Sluice RPC: echoes
 * payloads, streams pre-built payloads paced by demand, drops fire-and-forget payloads. Serve it
 * with {@code new ReactorBenchServer(new BenchService())}; call it with {@code ReactorBenchClient}.
 */
public class BenchService implements ReactorBench {
  @Override
  public Mono<Payload> response(Payload request) {
    return Mono.just(request);
  }

  @Override
  public Flux<Payload> stream(StreamRequest request) {
    Payload p = Payload.newBuilder().setData(ByteString.copyFrom(new byte[Math.max(0, request.getSize())])).build();
    if (request.getCount() > 0) {
      return Flux.<Payload, Long>generate(
          () -> 0L,
          (i, sink) -> {
            sink.next(p);
            if (i + 1 >= request.getCount()) {
              sink.complete();
            }
            return i + 1;
          });
    }
    return Flux.generate(sink -> sink.next(p));
  }

  @Override
  public Flux<Payload> channel(Flux<Payload> requests) {
    return requests;
  }

  @Override
  public Mono<Void> fire(Payload request) {
    return Mono.empty();
  }
}
