package io.sluice.transport.multiprotocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.sluice.Responder;
import io.sluice.core.ConnectionOptions;
import io.sluice.core.Connections;
import io.sluice.core.SluiceServer;
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import io.sluice.transport.grpc.GrpcServices;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Stopping a server on the one port ({@link SluiceServer#stop}) stops its gRPC connections too:
 * grpc-java sees GOAWAY (its next call fails over, here to nothing: UNAVAILABLE), a call in flight
 * finishes, and the stop completes once it has; a call still running when the grace is over is
 * cut (its handler cancelled), as on {@code GrpcServer} and the RSocket HTTP/2 servers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS) // hang guard only
class GrpcOnePortStopTest {
  private static final long GUARD = 30; // seconds; hang guard only
  private static final String NAME = "sluice.test.OnePortStop";
  private static final MethodDescriptor<StringValue, StringValue> WAIT =
      MethodDescriptor.<StringValue, StringValue>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(NAME, "Wait"))
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .build();

  private final CompletableFuture<Void> started = new CompletableFuture<>();
  /** Completed: Wait answers at once; until then it waits. */
  private final CompletableFuture<Void> release = new CompletableFuture<>();
  /** Completed when the server cancelled Wait's call. */
  private final CompletableFuture<Void> cancelled = new CompletableFuture<>();
  private SluiceServer server;
  private ManagedChannel channel;

  private ServiceRegistry registry() {
    io.sluice.rpc.MethodDescriptor<StringValue, StringValue> wait =
        io.sluice.rpc.MethodDescriptor.<StringValue, StringValue>builder()
            .service(NAME).method("Wait").kind(MethodKind.UNARY)
            .requestParser(StringValue.parser()).responseParser(StringValue.parser()).build();
    io.sluice.rpc.ServerCallHandler<StringValue, StringValue> handler =
        call -> {
          call.request(1);
          return new ServerCall.Listener<>() {
            @Override
            public void onMessage(StringValue m) {
              started.complete(null);
              release.thenRun(() -> {
                call.sendMessage(m);
                call.close(Status.OK);
              });
            }

            @Override
            public void onHalfClose() {}

            @Override
            public void onCancel() {
              cancelled.complete(null);
            }

            @Override
            public void onReady(long n) {}
          };
        };
    return ServiceRegistry.builder().add(ServiceDefinition.builder(NAME).add(wait, handler).build()).build();
  }

  private void start() throws Exception {
    server =
        Connections.start(
                MultiProtocolServerTransport.create("127.0.0.1", 0).withHttpRoutes(GrpcServices.of(registry()).httpRoutes()),
                ConnectionOptions.defaults(),
                (setup, requester) -> new Responder() {})
            .get(GUARD, TimeUnit.SECONDS);
    int port = ((InetSocketAddress) server.address()).getPort();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    release.complete(null);
    if (channel != null) {
      channel.shutdownNow().awaitTermination(GUARD, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.stop(Duration.ZERO);
    }
  }

  private static io.grpc.Status.Code codeOf(Runnable r) {
    try {
      r.run();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
    return io.grpc.Status.Code.OK;
  }

  @Test
  void afterTheStopTheOldChannelsNextCallFails() throws Exception {
    start();
    release.complete(null);
    assertThat(ClientCalls.blockingUnaryCall(channel, WAIT, CallOptions.DEFAULT, StringValue.of("before")).getValue())
        .isEqualTo("before");
    server.stop(Duration.ofSeconds(1)).get(GUARD, TimeUnit.SECONDS);
    assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(channel, WAIT, CallOptions.DEFAULT, StringValue.of("after"))))
        .as("a call on the old channel once the server stopped")
        .isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
  }

  /**
   * A connection whose calls all ended closes at the stop, not when a long grace is over: the stop
   * sends GOAWAY first, and netty's close after it waits for an empty write to go out, which must
   * complete like any other.
   */
  @Test
  void aConnectionWithNoCallInFlightClosesAtTheStop() throws Exception {
    start();
    release.complete(null);
    assertThat(ClientCalls.blockingUnaryCall(channel, WAIT, CallOptions.DEFAULT, StringValue.of("done")).getValue())
        .isEqualTo("done");
    server.stop(Duration.ofSeconds(GUARD * 20)).get(GUARD, TimeUnit.SECONDS); // well before the grace
  }

  @Test
  void aCallInFlightFinishesAndTheStopWaitsForIt() throws Exception {
    start();
    ListenableFuture<StringValue> inFlight =
        ClientCalls.futureUnaryCall(channel.newCall(WAIT, CallOptions.DEFAULT), StringValue.of("in flight"));
    started.get(GUARD, TimeUnit.SECONDS);
    CompletableFuture<Void> stopped = server.stop(Duration.ofSeconds(60));
    // GOAWAY: the channel leaves READY, and its next call finds no server.
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD);
    ConnectivityState s;
    while ((s = channel.getState(false)) == ConnectivityState.READY) {
      CountDownLatch changed = new CountDownLatch(1);
      channel.notifyWhenStateChanged(s, changed::countDown);
      assertThat(changed.await(end - System.nanoTime(), TimeUnit.NANOSECONDS)).as("the channel left READY").isTrue();
    }
    assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(channel, WAIT, CallOptions.DEFAULT, StringValue.of("new"))))
        .isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
    assertThat(stopped).as("the stop waits for the call in flight").isNotDone();
    release.complete(null);
    assertThat(inFlight.get(GUARD, TimeUnit.SECONDS).getValue()).isEqualTo("in flight");
    stopped.get(GUARD, TimeUnit.SECONDS);
  }

  @Test
  void aCallStillRunningWhenTheGraceIsOverIsCut() throws Exception {
    start();
    ListenableFuture<StringValue> inFlight =
        ClientCalls.futureUnaryCall(channel.newCall(WAIT, CallOptions.DEFAULT), StringValue.of("never answered"));
    started.get(GUARD, TimeUnit.SECONDS);
    server.stop(Duration.ofMillis(200)).get(GUARD, TimeUnit.SECONDS);
    java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
        java.util.concurrent.ExecutionException.class, () -> inFlight.get(GUARD, TimeUnit.SECONDS));
    assertThat(io.grpc.Status.fromThrowable(e.getCause()).getCode()).isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
    cancelled.get(GUARD, TimeUnit.SECONDS); // the handler is cancelled
  }
}
