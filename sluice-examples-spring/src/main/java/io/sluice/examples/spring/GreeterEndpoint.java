package io.sluice.examples.spring;

import io.sluice.examples.rpc.HelloReply;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeter;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * sluice.examples.Greeter as a Spring bean: implementing the generated {@link ReactorGreeter} is
 * all it takes for the starter to serve it (wrapped in the generated ReactorGreeterServer).
 */
// tag::service[]
@Service
public class GreeterEndpoint implements ReactorGreeter {
  private final String greeting;
  private final AtomicLong notifications = new AtomicLong();

  public GreeterEndpoint(@Value("${sample.greeting:hello}") String greeting) {
    this.greeting = greeting;
  }

  @Override
  public Mono<HelloReply> sayHello(HelloRequest request) {
    return Mono.just(reply(greeting + " " + request.getName(), 0));
  }
  // end::service[]

  @Override
  public Flux<HelloReply> streamGreetings(HelloRequest request) {
    return Flux.range(0, (int) Math.min(Math.max(request.getCount(), 1), 1_000))
        .map(i -> reply(greeting + " " + request.getName(), i));
  }

  @Override
  public Mono<HelloReply> collectNames(Flux<HelloRequest> requests) {
    return requests
        .map(HelloRequest::getName)
        .collectList()
        .map(names -> reply(greeting + " " + String.join(", ", names), names.size()));
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

  /** Fire-and-forget notifications received. */
  public long notifications() {
    return notifications.get();
  }

  private static HelloReply reply(String message, long index) {
    return HelloReply.newBuilder().setMessage(message).setIndex(index).build();
  }
}
