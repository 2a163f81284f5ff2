package io.sluice.examples.rpc;

import io.sluice.rpc.reactor.ReactorRpc;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The example implementation of {@code sluice.examples.Greeter}. */
public final class GreeterService implements ReactorGreeter {
  /** Fire-and-forget notifications received. */
  public final AtomicLong notifications = new AtomicLong();

  private static HelloReply reply(String message, long index) {
    return HelloReply.newBuilder().setMessage(message).setIndex(index).build();
  }

  @Override
  public Mono<HelloReply> sayHello(HelloRequest request) {
    // Headers sent by the client are in the call metadata.
    return ReactorRpc.callMetadata()
        .map(
            call -> {
              String lang = call.headers().get("lang");
              String hello = "fr".equals(lang) ? "bonjour " : "hello ";
              return reply(hello + request.getName(), 0);
            });
  }

  @Override
  public Flux<HelloReply> streamGreetings(HelloRequest request) {
    HelloReply[] cached = {reply("hello " + request.getName(), 0)};
    Flux<Long> indexes =
        request.getCount() > 0 ? Flux.range(0, (int) Math.min(request.getCount(), Integer.MAX_VALUE)).map(Integer::longValue)
            : Flux.<Long, Long>generate(() -> 0L, (i, sink) -> {
              sink.next(i);
              return i + 1;
            });
    return indexes.map(i -> i == 0 ? cached[0] : reply(cached[0].getMessage(), i));
  }

  @Override
  public Mono<HelloReply> collectNames(Flux<HelloRequest> requests) {
    return requests
        .map(HelloRequest::getName)
        .collectList()
        .map(names -> reply("hello " + String.join(", ", names), names.size()));
  }

  @Override
  public Flux<HelloReply> chat(Flux<HelloRequest> requests) {
    return requests.index().map(t -> reply("hi " + t.getT2().getName(), t.getT1()));
  }

  @Override
  public Mono<Void> notify(HelloRequest request) {
    notifications.incrementAndGet();
    return Mono.empty();
  }

}
