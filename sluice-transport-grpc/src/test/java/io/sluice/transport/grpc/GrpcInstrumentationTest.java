package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.sluice.rpc.RpcInstrumentation;
import io.sluice.rpc.Status;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The server reports its calls to an RpcInstrumentation, as the RSocket dispatcher does. */
class GrpcInstrumentationTest {
  @Test
  void callsAreObservedFromStartToEnd() throws Exception {
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    RpcInstrumentation instrumentation =
        (metadata, method) -> {
          events.add("start " + metadata.service() + "/" + metadata.method() + (method == null ? " (none)" : ""));
          return new RpcInstrumentation.CallObserver() {
            @Override
            public void onFirstResponse(long nanosSinceStart) {
              events.add("first");
            }

            @Override
            public void onEnd(Status status, long nanosSinceStart) {
              events.add("end " + status.code());
            }
          };
        };
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(GrpcServices.of(new EchoService().registry()).withInstrumentation(instrumentation))
            .start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      ClientCalls.blockingUnaryCall(channel, GrpcJavaClientTest.UNARY, CallOptions.DEFAULT, StringValue.of("a"));
      assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("start sluice.test.Echo/Unary");
      assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("first");
      assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("end OK");
      GrpcJavaClientTest.codeOf(
          () -> ClientCalls.blockingUnaryCall(channel, GrpcJavaClientTest.UNARY, CallOptions.DEFAULT, StringValue.of("status:7:no")));
      assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("start sluice.test.Echo/Unary");
      assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("end PERMISSION_DENIED");
      io.grpc.MethodDescriptor<StringValue, StringValue> missing =
          GrpcJavaClientTest.method(
              "Missing", io.grpc.MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
      GrpcJavaClientTest.codeOf(() -> ClientCalls.blockingUnaryCall(channel, missing, CallOptions.DEFAULT, StringValue.of("x")));
      assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("start sluice.test.Echo/Missing (none)");
      assertThat(events.poll(20, TimeUnit.SECONDS)).isEqualTo("end UNIMPLEMENTED");
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.close();
      server.onClose().get();
    }
  }

  /**
   * With the console on, the server observes its calls through both the console's figures and the
   * user's instrumentation: message sizes still reach the user's (they were dropped, so the A66
   * size histograms recorded nothing for a server with a console and metrics).
   */
  @Test
  void messageSizesReachTheInstrumentationWhenTheConsoleIsOn() throws Exception {
    java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
    BlockingQueue<String> ends = new LinkedBlockingQueue<>();
    RpcInstrumentation instrumentation =
        (metadata, method) ->
            new RpcInstrumentation.CallObserver() {
              @Override
              public void onMessageReceived(int bytes) {
                received.addAndGet(bytes);
              }

              @Override
              public void onMessageSent(int bytes) {
                sent.addAndGet(bytes);
              }

              @Override
              public void onEnd(Status status, long nanosSinceStart) {
                ends.add("end " + status.code());
              }
            };
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 0)
            .withServices(
                GrpcServices.of(new EchoService().registry()).withInstrumentation(instrumentation).withConsole())
            .start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      ClientCalls.blockingUnaryCall(channel, GrpcJavaClientTest.UNARY, CallOptions.DEFAULT, StringValue.of("abc"));
      assertThat(ends.poll(20, TimeUnit.SECONDS)).isEqualTo("end OK");
      assertThat(received.get()).isPositive();
      assertThat(sent.get()).isPositive();
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.close();
      server.onClose().get();
    }
  }
}
