package io.sluice.rpc.reactor;

import io.sluice.rpc.it.calc.CalcProtos.Sum;
import io.sluice.rpc.it.calc.ReactorCalculator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Second test service: sums, to show several services on one connection. */
final class CalcImpl implements ReactorCalculator {
  static long sum(Sum.Request r) {
    return r.getValuesList().stream().mapToLong(Long::longValue).sum();
  }

  @Override
  public Mono<Sum.Result> add(Sum.Request request) {
    return Mono.just(Sum.Result.newBuilder().setTotal(sum(request)).build());
  }

  @Override
  public Flux<Sum.Result> running(Flux<Sum.Request> requests) {
    return requests.scan(0L, (acc, r) -> acc + sum(r)).skip(1)
        .map(t -> Sum.Result.newBuilder().setTotal(t).build());
  }

  @Override
  public Mono<Sum.Result> default_(Sum.Request request) {
    return Mono.just(Sum.Result.newBuilder().setTotal(-sum(request)).build());
  }
}
