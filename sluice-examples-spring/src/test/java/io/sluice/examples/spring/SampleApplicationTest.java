package io.sluice.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.examples.rpc.HelloReply;
import io.sluice.examples.rpc.HelloRequest;
import io.sluice.examples.rpc.ReactorGreeterClient;
import io.sluice.spring.boot.SluiceServerLifecycle;
import io.sluice.test.Ports;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample app, started as the application starts: called over RSocket (TCP) through the stub
 * bean the starter makes from {@code sluice.client.greeter.*}, and over gRPC by a stock grpc-java
 * client, on the one port of application.yml.
 */
@SpringBootTest(
    properties = {
      "sluice.client.greeter.stub=io.sluice.examples.rpc.ReactorGreeterClient",
      "sluice.client.greeter.address=127.0.0.1:${sluice.server.port}",
      "sluice.client.greeter.deadline=30s"
    })
class SampleApplicationTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** The app's port: a free one, known before the context starts so the client can name it. */
  @DynamicPropertySource
  static void port(DynamicPropertyRegistry registry) throws IOException {
    int port = Ports.outsideEphemeralRange(); // the app binds it later: see Ports
    registry.add("sluice.server.port", () -> port);
  }

  // tag::client[]
  @Autowired ReactorGreeterClient greeter; // the bean of sluice.client.greeter.*
  // end::client[]
  @Autowired SluiceServerLifecycle server;
  @Autowired HealthEndpoint health;
  @Autowired GreeterEndpoint endpoint;
  @Autowired MeterRegistry meters; // the actuator's

  private double count(String name, String tag, String value) {
    Counter c = meters.find(name).tag(tag, value).counter();
    return c == null ? 0 : c.count();
  }

  // tag::client[]
  @Test
  void callsTheAppOverRsocketThroughTheStubBean() {
    HelloRequest ada = HelloRequest.newBuilder().setName("Ada").setCount(3).build();
    assertThat(greeter.sayHello(ada).block(WAIT).getMessage()).isEqualTo("hello Ada");
    // end::client[]
    assertThat(greeter.streamGreetings(ada).map(HelloReply::getIndex).collectList().block(WAIT))
        .containsExactly(0L, 1L, 2L);
    assertThat(greeter.options().timeout()).isEqualTo(WAIT);
  }

  @Test
  void callsTheAppOverGrpcWithGrpcJava() throws Exception {
    MethodDescriptor<HelloRequest, HelloReply> sayHello =
        method(MethodDescriptor.MethodType.UNARY, "SayHello");
    MethodDescriptor<HelloRequest, HelloReply> stream =
        method(MethodDescriptor.MethodType.SERVER_STREAMING, "StreamGreetings");
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      io.grpc.CallOptions options = io.grpc.CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS);
      HelloReply reply =
          ClientCalls.blockingUnaryCall(channel, sayHello, options, HelloRequest.newBuilder().setName("Bob").build());
      assertThat(reply.getMessage()).isEqualTo("hello Bob");
      List<Long> indexes = new ArrayList<>();
      Iterator<HelloReply> replies =
          ClientCalls.blockingServerStreamingCall(
              channel, stream, options, HelloRequest.newBuilder().setName("Cy").setCount(4).build());
      replies.forEachRemaining(r -> indexes.add(r.getIndex()));
      assertThat(indexes).containsExactly(0L, 1L, 2L, 3L);
    } finally {
      channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  private static MethodDescriptor<HelloRequest, HelloReply> method(MethodDescriptor.MethodType type, String name) {
    return MethodDescriptor.<HelloRequest, HelloReply>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("sluice.examples.Greeter", name))
        .setRequestMarshaller(ProtoUtils.marshaller(HelloRequest.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(HelloReply.getDefaultInstance()))
        .build();
  }

  /** sluice-micrometer is on the class path: the starter bound it to the actuator's registry. */
  @Test
  void theActuatorsMeterRegistryCountsTheCallsOfBothWiresAndTheConnections() throws Exception {
    double rsocket = count("rpc.server.call.started", "rpc.method", "SayHello");
    double grpc = count("grpc.server.call.started", "grpc.method", "sluice.examples.Greeter/SayHello");
    assertThat(greeter.sayHello(HelloRequest.newBuilder().setName("Mo").build()).block(WAIT).getMessage())
        .isEqualTo("hello Mo");
    ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      ClientCalls.blockingUnaryCall(
          channel,
          method(MethodDescriptor.MethodType.UNARY, "SayHello"),
          io.grpc.CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
          HelloRequest.newBuilder().setName("Nu").build());
    } finally {
      channel.shutdownNow().awaitTermination(30, TimeUnit.SECONDS);
    }
    assertThat(count("rpc.server.call.started", "rpc.method", "SayHello")).isEqualTo(rsocket + 1);
    assertThat(count("grpc.server.call.started", "grpc.method", "sluice.examples.Greeter/SayHello")).isEqualTo(grpc + 1);
    // The app's server and its own client bean, each one side of the RSocket connection.
    assertThat(meters.get("sluice.connections.opened").tag("side", "server").functionCounter().count()).isGreaterThanOrEqualTo(1);
    assertThat(meters.get("sluice.connections.opened").tag("side", "client").functionCounter().count()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void healthShowsTheServerAcceptingAndTheClientConnected() {
    greeter.sayHello(HelloRequest.newBuilder().setName("Di").build()).block(WAIT); // the balancer is connected now
    HealthComponent serverHealth = health.healthForPath("sluiceServer");
    assertThat(serverHealth.getStatus()).isEqualTo(Status.UP);
    assertThat(serverHealth).extracting("details").asString()
        .contains("one-port", "sluice.examples.Greeter", "grpc.reflection.v1.ServerReflection");
    assertThat(health.healthForPath("sluiceClients").getStatus()).isEqualTo(Status.UP);
    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
  }

  @Test
  void fireAndForgetReachesTheBean() throws InterruptedException {
    long before = endpoint.notifications();
    greeter.notify(HelloRequest.newBuilder().setName("Ed").build()).block(WAIT);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (endpoint.notifications() == before && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(endpoint.notifications()).isEqualTo(before + 1);
  }
}
