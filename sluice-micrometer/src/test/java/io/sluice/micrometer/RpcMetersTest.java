package io.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.Message;
import io.sluice.Requester;
import io.sluice.core.ClientSetup;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.rpc.CallMetadata;
import io.sluice.rpc.MethodDescriptor;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.rsocket.CallMetadataCodec;
import io.sluice.rpc.rsocket.RpcResponder;
import io.sluice.transport.local.LocalTransport;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RPC server meters: on the RSocket wire through a real {@link RpcResponder} (OpenTelemetry RPC
 * names), on the gRPC wire through the instrumentation as the gRPC server calls it (gRFC A66
 * names); per method and status; message sizes; and 1,000 made-up method names that fold into
 * {@code other} without one new series.
 */
class RpcMetersTest {
  static final MethodDescriptor<BytesValue, BytesValue> SAY =
      MethodDescriptor.<BytesValue, BytesValue>builder()
          .service("test.Echo")
          .method("Say")
          .kind(MethodKind.UNARY)
          .requestParser(BytesValue.parser())
          .responseParser(BytesValue.parser())
          .build();

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final SluiceMetrics metrics = SluiceMetrics.of(registry);
  private SluiceServer server;
  private Requester client;

  @BeforeEach
  void start() throws Exception {
    ServerCallHandler<BytesValue, BytesValue> echo =
        call -> {
          call.request(1);
          return new ServerCall.Listener<>() {
            @Override
            public void onMessage(BytesValue request) {
              call.sendMessage(BytesValue.of(request.getValue().concat(ByteString.copyFromUtf8("!"))));
              call.close(Status.OK);
            }

            @Override
            public void onHalfClose() {}

            @Override
            public void onCancel() {}

            @Override
            public void onReady(long n) {}
          };
        };
    ServiceRegistry services =
        ServiceRegistry.builder().add(() -> ServiceDefinition.builder("test.Echo").add(SAY, echo).build()).build();
    String name = "rpc-metrics-" + UUID.randomUUID();
    server =
        Connections.start(
                LocalTransport.server(name),
                ConnectionOptions.defaults(),
                RpcResponder.acceptor(services, metrics.rsocketServer()))
            .get(60, TimeUnit.SECONDS);
    client =
        Connections.connect(LocalTransport.client(name), ConnectionOptions.defaults(), ClientSetup.defaults(), r -> new io.sluice.Responder() {})
            .get(60, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    client.dispose();
    client.onClose().handle((v, e) -> null).get(60, TimeUnit.SECONDS);
    server.close();
  }

  /** One unary call of {@code service/method} with {@code body}; the outcome, answer or error. */
  private CompletableFuture<Object> call(String service, String method, byte[] body) {
    ByteBuf md = CallMetadataCodec.encode(client.alloc(), CallMetadata.of(service, method));
    ByteBuf data = Unpooled.wrappedBuffer(BytesValue.of(ByteString.copyFrom(body)).toByteArray());
    CompletableFuture<Object> result = new CompletableFuture<>();
    client.requestResponse(
        Message.of(md, data),
        new Exchanges.Quiet() {
          @Override
          public void onNext(Message m) {
            try {
              result.complete(m.data().readableBytes());
            } finally {
              m.release();
            }
          }

          @Override
          public void onError(Throwable cause) {
            result.complete(cause);
          }
        });
    return result;
  }

  @Test
  void rsocketWireCallsAreCountedPerMethodAndStatusWithOpenTelemetryNames() throws Exception {
    byte[] body = new byte[100];
    for (int i = 0; i < 3; i++) {
      assertThat(call("test.Echo", "Say", body).get(60, TimeUnit.SECONDS)).isEqualTo(BytesValue.of(ByteString.copyFrom(new byte[101])).getSerializedSize());
    }
    String[] method = {"rpc.system", "sluice", "rpc.service", "test.Echo", "rpc.method", "Say"};
    assertThat(registry.get("rpc.server.call.started").tags(method).counter().count()).isEqualTo(3);
    Timer duration =
        registry.get("rpc.server.call.duration").tags(method).tag("rpc.response.status_code", "OK").timer();
    assertThat(Exchanges.await(() -> duration.count(), 3)).isEqualTo(3);
    DistributionSummary received =
        registry.get("rpc.server.request.size").tags(method).tag("rpc.response.status_code", "OK").summary();
    DistributionSummary sent =
        registry.get("rpc.server.response.size").tags(method).tag("rpc.response.status_code", "OK").summary();
    int requestBytes = BytesValue.of(ByteString.copyFrom(body)).getSerializedSize();
    int responseBytes = BytesValue.of(ByteString.copyFrom(new byte[101])).getSerializedSize();
    assertThat(received.totalAmount()).isEqualTo(3.0 * requestBytes);
    assertThat(sent.totalAmount()).isEqualTo(3.0 * responseBytes);
  }

  @Test
  void madeUpMethodsFoldIntoOtherAndMakeNoNewSeries() throws Exception {
    // One made-up call first, so that the "other" meters and its UNIMPLEMENTED status exist.
    assertThat(call("no.Such", "Thing", new byte[1]).get(60, TimeUnit.SECONDS)).isInstanceOf(Throwable.class);
    Timer otherUnimplemented =
        registry.get("rpc.server.call.duration")
            .tags("rpc.service", "other", "rpc.method", "other", "rpc.response.status_code", "UNIMPLEMENTED")
            .timer();
    assertThat(Exchanges.await(() -> otherUnimplemented.count(), 1)).isEqualTo(1);
    int meters = registry.getMeters().size();
    CompletableFuture<?>[] calls = new CompletableFuture<?>[1000];
    for (int i = 0; i < calls.length; i++) {
      calls[i] = call(i % 2 == 0 ? "test.Echo" : "made.Up" + i, "Method" + i, new byte[1]);
    }
    CompletableFuture.allOf(calls).get(60, TimeUnit.SECONDS);
    for (CompletableFuture<?> c : calls) {
      assertThat(c.get()).isInstanceOf(Throwable.class); // none of them exists
    }
    assertThat(Exchanges.await(() -> otherUnimplemented.count(), 1001)).isEqualTo(1001);
    assertThat(registry.get("rpc.server.call.started").tags("rpc.method", "other").counter().count()).isEqualTo(1001);
    assertThat(registry.getMeters()).as("meters after 1,000 made-up methods").hasSize(meters);
    assertThat(registry.find("rpc.server.call.started").tag("rpc.method", "Method3").counter()).isNull();
  }

  @Test
  void grpcWireCallsUseTheGrfcA66NamesAndAttributes() {
    RpcInstrumentation grpc = metrics.grpcServer();
    RpcInstrumentation.CallObserver call = grpc.onCallStart(CallMetadata.of("test.Echo", "Say"), SAY);
    call.onMessageReceived(10);
    call.onMessageSent(7);
    call.onMessageSent(5);
    call.onEnd(Status.of(Status.Code.UNAVAILABLE, "x"), 2_000_000);
    RpcInstrumentation.CallObserver unknown = grpc.onCallStart(CallMetadata.of("x.Y", "Z"), null);
    unknown.onEnd(Status.of(Status.Code.UNIMPLEMENTED, "no"), 1_000);

    assertThat(registry.get("grpc.server.call.started").tag("grpc.method", "test.Echo/Say").counter().count()).isEqualTo(1);
    Timer d = registry.get("grpc.server.call.duration").tags("grpc.method", "test.Echo/Say", "grpc.status", "UNAVAILABLE").timer();
    assertThat(d.count()).isEqualTo(1);
    assertThat(d.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2.0);
    assertThat(registry.get("grpc.server.call.sent_total_compressed_message_size")
            .tags("grpc.method", "test.Echo/Say", "grpc.status", "UNAVAILABLE").summary().totalAmount())
        .isEqualTo(12);
    assertThat(registry.get("grpc.server.call.rcvd_total_compressed_message_size")
            .tags("grpc.method", "test.Echo/Say", "grpc.status", "UNAVAILABLE").summary().totalAmount())
        .isEqualTo(10);
    assertThat(registry.get("grpc.server.call.duration").tags("grpc.method", "other", "grpc.status", "UNIMPLEMENTED").timer().count())
        .isEqualTo(1);
    // the A66 meters carry exactly grpc.method (and grpc.status), no RSocket-wire tag
    assertThat(registry.get("grpc.server.call.duration").timer().getId().getTags())
        .extracting(io.micrometer.core.instrument.Tag::getKey)
        .containsExactlyInAnyOrder("grpc.method", "grpc.status");
  }
}
