package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.StringValue;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.Requester;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.reactor.ReactorRequester;
import io.sluice.reactor.SluiceClient;
import io.sluice.rpc.CallOptions;
import io.sluice.rpc.ClientInterceptors;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.StatusException;
import io.sluice.rpc.reactor.ReactorClientCalls;
import io.sluice.rpc.reactor.ReactorServerCalls;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.ServerTransport;
import io.sluice.transport.grpc.GrpcChannel;
import io.sluice.transport.grpc.GrpcClientTransport;
import io.sluice.transport.grpc.GrpcServer;
import io.sluice.transport.netty.TcpClientTransport;
import io.sluice.transport.netty.TcpServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * RPC client meters, as client interceptors over real connections (TCP on 127.0.0.1): gRFC A66's
 * client names and attributes on the gRPC wire, OpenTelemetry's rpc.client.* on the RSocket wire;
 * per method, target and status, with each call's message bytes; and methods beyond the cap folding
 * into {@code other} without new series.
 */
class RpcClientMetersTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  static final MethodDescriptor<StringValue, StringValue> ECHO = method("test.Echo", "Say");

  private static ServerTransport.Bound rsocketServer;
  private static GrpcServer.Running grpcServer;
  private static Requester rsocket;
  private static GrpcChannel grpc;

  static MethodDescriptor<StringValue, StringValue> method(String service, String name) {
    return MethodDescriptor.<StringValue, StringValue>builder()
        .service(service)
        .method(name)
        .kind(MethodKind.UNARY)
        .requestParser(StringValue.parser())
        .responseParser(StringValue.parser())
        .build();
  }

  @BeforeAll
  static void start() throws Exception {
    ServiceRegistry registry =
        ServiceRegistry.builder()
            .add(ServiceDefinition.builder("test.Echo")
                .add(ECHO, ReactorServerCalls.unary((StringValue r) -> r.getValue().startsWith("fail")
                    ? Mono.error(StatusException.of(Status.Code.UNAVAILABLE, "asked to fail"))
                    : Mono.just(StringValue.of(r.getValue() + "!"))))
                .build())
            .build();
    rsocketServer =
        Connections.serve(TcpServerTransport.create("127.0.0.1", 0), ConnectionOptions.defaults(), RpcResponder.acceptor(registry))
            .get(30, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) rsocketServer.address()).getPort();
    rsocket = SluiceClient.builder(TcpClientTransport.create("127.0.0.1", port)).connect().block(WAIT).unwrap();
    grpcServer = GrpcServer.create("127.0.0.1", 0).withServices(registry).start();
    grpc = GrpcClientTransport.create("127.0.0.1", grpcServer.port()).connect().get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    rsocket.dispose();
    grpc.dispose();
    rsocketServer.close();
    grpcServer.close();
    grpcServer.onClose().get(30, TimeUnit.SECONDS);
  }

  private static StringValue call(ReactorRequester r, MethodDescriptor<StringValue, StringValue> m, String body) {
    return ReactorClientCalls.unary(r, m, CallOptions.DEFAULT, StringValue.of(body)).block(WAIT);
  }

  @Test
  void grpcWireCallsUseTheGrfcA66ClientNamesAndAttributes() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    String target = "dns:///127.0.0.1:" + grpcServer.port();
    // tag::grpc-client[]
    Requester metered = ClientInterceptors.intercept(grpc, SluiceMetrics.of(registry).grpcClient(target));
    // end::grpc-client[]
    ReactorRequester client = new ReactorRequester(metered);
    assertThat(call(client, ECHO, "hello").getValue()).isEqualTo("hello!");
    assertThat(call(client, ECHO, "hello").getValue()).isEqualTo("hello!");
    assertThatThrownBy(() -> call(client, ECHO, "fail"))
        .isInstanceOf(StatusException.class)
        .satisfies(t -> assertThat(((StatusException) t).code()).isEqualTo(Status.Code.UNAVAILABLE));

    String[] tags = {"grpc.method", "test.Echo/Say", "grpc.target", target};
    assertThat(registry.get("grpc.client.attempt.started").tags(tags).counter().count()).isEqualTo(3);
    Timer ok = registry.get("grpc.client.attempt.duration").tags(tags).tag("grpc.status", "OK").timer();
    assertThat(ok.count()).isEqualTo(2);
    assertThat(registry.get("grpc.client.call.duration").tags(tags).tag("grpc.status", "OK").timer().count()).isEqualTo(2);
    assertThat(registry.get("grpc.client.call.duration").tags(tags).tag("grpc.status", "UNAVAILABLE").timer().count())
        .isEqualTo(1);
    int sent = StringValue.of("hello").getSerializedSize();
    int received = StringValue.of("hello!").getSerializedSize();
    assertThat(registry.get("grpc.client.attempt.sent_total_compressed_message_size").tags(tags).tag("grpc.status", "OK")
            .summary().totalAmount())
        .isEqualTo(2.0 * sent);
    assertThat(registry.get("grpc.client.attempt.rcvd_total_compressed_message_size").tags(tags).tag("grpc.status", "OK")
            .summary().totalAmount())
        .isEqualTo(2.0 * received);
    // exactly A66's attributes, nothing of the RSocket wire's
    assertThat(ok.getId().getTags()).extracting(Tag::getKey)
        .containsExactlyInAnyOrder("grpc.method", "grpc.target", "grpc.status");
    assertThat(registry.find("rpc.client.call.duration").timer()).isNull();
  }

  /**
   * A call its subscriber fails before the start (request(0) inside onSubscribe, Reactive Streams
   * §3.9) is never started and never ends: it is not counted as started, so the calls started
   * equal the calls ended (before: counted when made, it stayed in flight for good).
   */
  @Test
  void aCallNeverStartedIsNotCountedAsStarted() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    String target = "dns:///127.0.0.1:" + grpcServer.port();
    ReactorRequester client =
        new ReactorRequester(ClientInterceptors.intercept(grpc, SluiceMetrics.of(registry).grpcClient(target)));
    java.util.concurrent.CompletableFuture<Throwable> error = new java.util.concurrent.CompletableFuture<>();
    ReactorClientCalls.unary(client, ECHO, CallOptions.DEFAULT, StringValue.of("never"))
        .subscribe(
            new reactor.core.publisher.BaseSubscriber<StringValue>() {
              @Override
              protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                s.request(0);
              }

              @Override
              protected void hookOnError(Throwable t) {
                error.complete(t);
              }
            });
    assertThat(error.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    assertThat(call(client, ECHO, "hello").getValue()).isEqualTo("hello!");

    String[] tags = {"grpc.method", "test.Echo/Say", "grpc.target", target};
    double started = registry.get("grpc.client.attempt.started").tags(tags).counter().count();
    // The call's end is recorded when its listener hears it, which may be after the caller has the answer.
    long ended = 0;
    for (long end = System.nanoTime() + WAIT.toNanos(); ended < 1 && System.nanoTime() < end; Thread.sleep(5)) {
      ended = registry.find("grpc.client.call.duration").tags(tags).timers().stream().mapToLong(Timer::count).sum();
    }
    assertThat(started).as("calls started").isEqualTo(1);
    assertThat(ended).as("calls ended").isEqualTo(1);
  }

  @Test
  void rsocketWireCallsUseOpenTelemetryClientNames() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ReactorRequester client =
        new ReactorRequester(ClientInterceptors.intercept(rsocket, SluiceMetrics.of(registry).rsocketClient("echo-server")));
    assertThat(call(client, ECHO, "abc").getValue()).isEqualTo("abc!");
    assertThatThrownBy(() -> call(client, ECHO, "fail-now")).isInstanceOf(StatusException.class);

    String[] tags = {"rpc.system", "sluice", "rpc.service", "test.Echo", "rpc.method", "Say", "server.address", "echo-server"};
    assertThat(registry.get("rpc.client.call.started").tags(tags).counter().count()).isEqualTo(2);
    assertThat(registry.get("rpc.client.call.duration").tags(tags).tag("rpc.response.status_code", "OK").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("rpc.client.call.duration").tags(tags).tag("rpc.response.status_code", "UNAVAILABLE").timer()
            .count())
        .isEqualTo(1);
    assertThat(registry.get("rpc.client.request.size").tags(tags).tag("rpc.response.status_code", "OK").summary().totalAmount())
        .isEqualTo(StringValue.of("abc").getSerializedSize());
    assertThat(registry.get("rpc.client.response.size").tags(tags).tag("rpc.response.status_code", "OK").summary().totalAmount())
        .isEqualTo(StringValue.of("abc!").getSerializedSize());
    assertThat(registry.find("grpc.client.attempt.duration").timer()).isNull();
  }

  @Test
  void methodsBeyondTheCapFoldIntoOtherWithoutNewSeries() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ReactorRequester client =
        new ReactorRequester(ClientInterceptors.intercept(rsocket, SluiceMetrics.of(registry).rsocketClient("echo-server")));
    // RpcMeters.MAX_METHODS distinct (unknown to the server) methods take every per-method slot.
    for (int i = 0; i < RpcMeters.MAX_METHODS; i++) {
      int n = i;
      assertThatThrownBy(() -> call(client, method("made.Up", "M" + n), "x")).isInstanceOf(StatusException.class);
    }
    assertThat(registry.find("rpc.client.call.started").tag("rpc.method", "M999").counter()).isNotNull();
    assertThatThrownBy(() -> call(client, method("made.Up", "First"), "x")).isInstanceOf(StatusException.class);
    int meters = registry.getMeters().size();
    for (int i = 0; i < 100; i++) {
      int n = i;
      assertThatThrownBy(() -> call(client, method("made.Up", "Later" + n), "x")).isInstanceOf(StatusException.class);
    }
    assertThat(registry.getMeters()).as("meters after 100 more methods").hasSize(meters);
    assertThat(registry.find("rpc.client.call.started").tag("rpc.method", "Later7").counter()).isNull();
    assertThat(registry.get("rpc.client.call.started").tags("rpc.service", "other", "rpc.method", "other").counter().count())
        .isEqualTo(101);
    assertThat(registry.get("rpc.client.call.duration")
            .tags("rpc.method", "other", "rpc.response.status_code", "UNIMPLEMENTED").timer().count())
        .isEqualTo(101);
  }
}
