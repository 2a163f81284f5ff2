package io.sluice.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.examples.rpc.HelloReply;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeterClient;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.spring.boot.SluiceServerLifecycle;
import io.sluice.transport.netty.TcpClientTransport;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * Closing the context drains the Sluice server: a bidi call in flight when the close starts goes on
 * (a message sent after the close began is answered) and ends normally, the close waits for it,
 * and the health indicator says DOWN meanwhile.
 */
class GracefulShutdownTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aCallInFlightFinishesWhileTheContextCloses() throws Exception {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(SampleApplication.class)
            .run("--sluice.server.port=0", "--spring.lifecycle.timeout-per-shutdown-phase=60s");
    CompletableFuture<Void> closed = null;
    ReactorRequester requester = null;
    try {
      SluiceServerLifecycle server = context.getBean(SluiceServerLifecycle.class);
      HealthEndpoint health = context.getBean(HealthEndpoint.class);
      requester = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", server.port())).connect().block(WAIT);
      ReactorGreeterClient greeter = new ReactorGreeterClient(requester);

      Sinks.Many<HelloRequest> names = Sinks.many().unicast().onBackpressureBuffer();
      StepVerifier.Step<HelloReply> chat =
          StepVerifier.create(greeter.chat(names.asFlux()))
              .then(() -> names.tryEmitNext(name("Cy")))
              .assertNext(r -> assertThat(r.getMessage()).isEqualTo("hi Cy"));
      // The call is in flight (its first answer came back): close the context from another thread.
      CompletableFuture<Void> closing = new CompletableFuture<>();
      chat =
          chat.then(
                  () -> {
                    CompletableFuture.runAsync(context::close).whenComplete((v, e) -> {
                      if (e != null) {
                        closing.completeExceptionally(e);
                      } else {
                        closing.complete(null);
                      }
                    });
                    awaitState(server, SluiceServerLifecycle.State.STOPPING);
                    assertThat(health.healthForPath("sluiceServer").getStatus()).isEqualTo(Status.DOWN);
                    assertThat(closing).as("the close waits for the call in flight").isNotDone();
                    names.tryEmitNext(name("Di"));
                  })
              .assertNext(r -> assertThat(r.getMessage()).isEqualTo("hi Di"))
              .then(names::tryEmitComplete);
      closed = closing;
      chat.expectComplete().verify(WAIT);
      closing.get(60, TimeUnit.SECONDS);
      assertThat(server.state()).isEqualTo(SluiceServerLifecycle.State.STOPPED);
      assertThat(context.isActive()).isFalse();
    } finally {
      if (requester != null) {
        requester.dispose();
      }
      if (closed == null || !closed.isDone()) {
        context.close();
      }
    }
  }

  private static HelloRequest name(String name) {
    return HelloRequest.newBuilder().setName(name).build();
  }

  private static void awaitState(SluiceServerLifecycle server, SluiceServerLifecycle.State state) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (server.state() != state && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
    assertThat(server.state()).isEqualTo(state);
  }
}
