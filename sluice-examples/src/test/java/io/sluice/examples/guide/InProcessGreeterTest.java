package io.sluice.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

// tag::imports[]
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.examples.rpc.GreeterService;
import io.sluice.examples.rpc.HelloReply;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeterClient;
import io.sluice.examples.rpc.ReactorGreeterServer;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.test.LeakCheckExtension;
import io.sluice.transport.local.LocalTransport;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
// end::imports[]
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.Headers;
import java.util.List;

/**
 * docs/guide/testing-your-service.md: a service tested in-process over the local transport, with
 * sluice-test-support's leak check. It runs in this build like any other test.
 */
// tag::test[]
@ExtendWith(LeakCheckExtension.class) // fails the class if netty reports a leaked buffer
class InProcessGreeterTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  SluiceServer server;
  ReactorRequester connection;
  ReactorGreeterClient greeter;

  @BeforeEach
  void start() {
    String name = "greeter-" + UUID.randomUUID(); // a name per test: tests may run in parallel
    ServiceRegistry registry =
        ServiceRegistry.builder().add(new ReactorGreeterServer(new GreeterService())).build();
    server =
        Connections.start(
                LocalTransport.server(name), ConnectionOptions.defaults(), RpcResponder.acceptor(registry))
            .join();
    connection = SluiceClient.builder(LocalTransport.client(name)).connect().block(WAIT);
    greeter = new ReactorGreeterClient(connection);
  }

  @AfterEach
  void stop() {
    connection.close();
    server.stop(Duration.ofSeconds(5)).join(); // the same graceful stop as in production
  }

  @Test
  void saysHello() {
    HelloReply reply = greeter.sayHello(HelloRequest.newBuilder().setName("Ada").build()).block(WAIT);
    assertThat(reply.getMessage()).isEqualTo("hello Ada");
  }
  // end::test[]

  @Test
  void readsHeaders() {
    HelloReply reply =
        greeter
            .withOptions(CallOptions.DEFAULT.withHeaders(Headers.of("lang", "fr")))
            .sayHello(HelloRequest.newBuilder().setName("Ada").build())
            .block(WAIT);
    assertThat(reply.getMessage()).isEqualTo("bonjour Ada");
  }

  @Test
  void streams() {
    List<HelloReply> replies =
        greeter.streamGreetings(HelloRequest.newBuilder().setName("Ada").setCount(3).build())
            .collectList()
            .block(WAIT);
    assertThat(replies).extracting(HelloReply::getIndex).containsExactly(0L, 1L, 2L);
  }

  // tag::test[]
}
// end::test[]
