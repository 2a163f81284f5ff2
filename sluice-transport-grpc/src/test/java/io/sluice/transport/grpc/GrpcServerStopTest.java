package io.sluice.transport.grpc;

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
import io.sluice.rpc.MethodKind;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.rpc.Status;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Stopping a {@link GrpcServer} while grpc-java has a call in flight: the server sends GOAWAY
 * (the client's next call goes elsewhere, here nowhere: UNAVAILABLE), lets the call finish, and
 * closes the connection then, or when the grace is over.
 */
class GrpcServerStopTest {
  private static final long GUARD = 30; // seconds; hang guard only
  private static final String NAME = "sluice.test.Stop";
  private static final MethodDescriptor<StringValue, StringValue> WAIT =
      MethodDescriptor.<StringValue, StringValue>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(NAME, "Wait"))
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .build();

  /** Wait: answers its request once {@link #release} is completed. */
  static final class Gate {
    final CompletableFuture<Void> started = new CompletableFuture<>();
    final CompletableFuture<Void> release = new CompletableFuture<>();
    final CompletableFuture<Void> cancelled = new CompletableFuture<>();

    ServiceRegistry registry() {
      io.sluice.rpc.MethodDescriptor<StringValue, StringValue> wait =
          io.sluice.rpc.MethodDescriptor.<StringValue, StringValue>builder()
              .service(NAME).method("Wait").kind(MethodKind.UNARY)
              .requestParser(StringValue.parser()).responseParser(StringValue.parser()).build();
      return ServiceRegistry.builder()
          .add(ServiceDefinition.builder(NAME).add(wait, this::start).build())
          .build();
    }

    private ServerCall.Listener<StringValue> start(ServerCall<StringValue, StringValue> call) {
      call.request(1);
      return new EchoService.Adapter<>() {
        @Override
        public void onMessage(StringValue m) {
          started.complete(null);
          release.thenRun(() -> {
            call.sendMessage(m);
            call.close(Status.OK);
          });
        }

        @Override
        public void onCancel() {
          cancelled.complete(null);
        }
      };
    }
  }

  private GrpcServer.Running server;
  private ManagedChannel channel;

  private void start(Gate gate) {
    server = GrpcServer.create("127.0.0.1", 0).withServices(gate.registry()).start();
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(GUARD, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  /** Waits until the channel is no longer READY: its connection got GOAWAY (or closed). */
  private static void awaitNotReady(ManagedChannel channel) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(GUARD);
    ConnectivityState s;
    while ((s = channel.getState(false)) == ConnectivityState.READY) {
      CountDownLatch changed = new CountDownLatch(1);
      channel.notifyWhenStateChanged(s, changed::countDown);
      assertThat(changed.await(end - System.nanoTime(), TimeUnit.NANOSECONDS)).as("the channel left READY").isTrue();
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
  void closeLetsTheCallInFlightFinishAndRefusesNewCalls() throws Exception {
    Gate gate = new Gate();
    start(gate);
    ListenableFuture<StringValue> inFlight =
        ClientCalls.futureUnaryCall(channel.newCall(WAIT, CallOptions.DEFAULT), StringValue.of("in flight"));
    gate.started.get(GUARD, TimeUnit.SECONDS);
    server.close();
    awaitNotReady(channel);
    assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(channel, WAIT, CallOptions.DEFAULT, StringValue.of("new"))))
        .as("a call made after the close")
        .isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
    gate.release.complete(null);
    assertThat(inFlight.get(GUARD, TimeUnit.SECONDS).getValue()).isEqualTo("in flight");
    assertThat(gate.cancelled).isNotDone();
  }

  @Test
  void stopClosesTheConnectionOnceItsLastCallEnded() throws Exception {
    Gate gate = new Gate();
    start(gate);
    ListenableFuture<StringValue> inFlight =
        ClientCalls.futureUnaryCall(channel.newCall(WAIT, CallOptions.DEFAULT), StringValue.of("in flight"));
    gate.started.get(GUARD, TimeUnit.SECONDS);
    CompletableFuture<Void> stopped = server.stop(Duration.ofSeconds(60));
    awaitNotReady(channel);
    assertThat(stopped).as("stopped while a call is in flight").isNotDone();
    gate.release.complete(null);
    assertThat(inFlight.get(GUARD, TimeUnit.SECONDS).getValue()).isEqualTo("in flight");
    stopped.get(GUARD, TimeUnit.SECONDS); // well before the grace of 60 s: the connection had no call left
    assertThat(server.stop(Duration.ZERO)).as("stop again: the same future").isSameAs(stopped);
  }

  /**
   * A connection whose calls all ended closes at the stop, not when a long grace is over: netty's
   * close after the GOAWAY waits for an empty write to go out, which must complete like any other.
   */
  @Test
  void aConnectionWithNoCallInFlightClosesAtTheStop() throws Exception {
    Gate gate = new Gate();
    start(gate);
    gate.release.complete(null);
    assertThat(ClientCalls.blockingUnaryCall(channel, WAIT, CallOptions.DEFAULT, StringValue.of("done")).getValue())
        .isEqualTo("done");
    assertThat(server.connections()).isEqualTo(1);
    server.stop(Duration.ofSeconds(GUARD * 20)).get(GUARD, TimeUnit.SECONDS); // well before the grace
    assertThat(server.connections()).isZero();
  }

  @Test
  void aCallStillRunningWhenTheGraceIsOverIsCut() throws Exception {
    Gate gate = new Gate();
    start(gate);
    ListenableFuture<StringValue> inFlight =
        ClientCalls.futureUnaryCall(channel.newCall(WAIT, CallOptions.DEFAULT), StringValue.of("never answered"));
    gate.started.get(GUARD, TimeUnit.SECONDS);
    server.stop(Duration.ofMillis(200)).get(GUARD, TimeUnit.SECONDS);
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> inFlight.get(GUARD, TimeUnit.SECONDS));
    assertThat(io.grpc.Status.fromThrowable(e.getCause()).getCode()).isEqualTo(io.grpc.Status.Code.UNAVAILABLE);
    gate.cancelled.get(GUARD, TimeUnit.SECONDS); // the handler is cancelled
  }
}
