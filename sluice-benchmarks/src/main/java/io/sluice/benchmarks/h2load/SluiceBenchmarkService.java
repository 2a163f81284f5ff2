package io.sluice.benchmarks.h2load;

import com.google.protobuf.ByteString;
import reactor.core.publisher.Mono;

/**
 * Sluice's {@code grpc.testing.BenchmarkService}: {@code UnaryCall} answers as grpc-java's
 * benchmark server does (its {@code Utils.makeResponse}): a payload of {@code response_size} zero
 * bytes, made anew for each call, or the empty response for size 0.
 */
final class SluiceBenchmarkService implements ReactorBenchmarkService {
  @Override
  public Mono<SimpleResponse> unaryCall(SimpleRequest request) {
    int size = request.getResponseSize();
    if (size <= 0) {
      return Mono.just(SimpleResponse.getDefaultInstance());
    }
    Payload payload = Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
    return Mono.just(SimpleResponse.newBuilder().setPayload(payload).build());
  }
}
