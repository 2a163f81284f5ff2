package io.sluice.interop.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.messaging.rsocket.annotation.ConnectMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The server's routes, one per interaction; the Sluice side of the interop test calls each. The
 * data is JSON or CBOR, as the client's SETUP says.
 */
@Controller
public class GreetingController {
  private final List<String> notified = new CopyOnWriteArrayList<>();
  private final AtomicInteger pushes = new AtomicInteger();

  /** request-response */
  @MessageMapping("greet")
  public Mono<Greeting> greet(Greeting in) {
    return Mono.just(new Greeting(in.name(), "hello " + in.name(), 1));
  }

  /** request-stream: {@code count} greetings */
  @MessageMapping("count")
  public Flux<Greeting> count(Greeting in) {
    return Flux.range(0, (int) in.count()).map(i -> new Greeting(in.name(), "hello " + in.name() + " #" + i, i));
  }

  /** request-channel: one answer per message */
  @MessageMapping("chat")
  public Flux<Greeting> chat(Flux<Greeting> in) {
    return in.map(g -> new Greeting(g.name(), "hi " + g.name(), 0));
  }

  /** fire-and-forget: remembered, and told by "notified" */
  @MessageMapping("notify")
  public Mono<Void> notify(Greeting in) {
    notified.add(in.name());
    return Mono.empty();
  }

  @MessageMapping("notified")
  public Mono<Greeting> notified() {
    return Mono.just(new Greeting(String.join(",", notified), "notified", notified.size()));
  }

  /** An error: rsocket-java sends it as APPLICATION_ERROR with the exception's message. */
  @MessageMapping("fail")
  public Mono<Greeting> fail(Greeting in) {
    return Mono.error(new IllegalArgumentException("no greeting for " + in.name()));
  }

  /** metadata-push with the route "push": counted, and told by "pushes". */
  @ConnectMapping("push")
  public void push() {
    pushes.incrementAndGet();
  }

  @MessageMapping("pushes")
  public Mono<Greeting> pushes() {
    return Mono.just(new Greeting("pushes", "pushes", pushes.get()));
  }
}
