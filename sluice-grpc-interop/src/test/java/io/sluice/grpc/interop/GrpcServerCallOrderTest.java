package io.sluice.grpc.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.testing.integration.GrpcTestService;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServiceDefinition;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.grpc.GrpcServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Sluice's gRPC server call keeps the order of what a handler does across threads: a response sent
 * from another thread, then (after sendMessage returned there) a close made on the event loop,
 * reaches the client as the response and then OK. A hand-built handler, no flavor in between.
 *
 * <p>Disabled: it fails on every run today. GrpcServerCall.sendMessage off the loop hands the write
 * to the loop (queued behind the task the loop is running), while close on the loop finishes the
 * call at once; the queued write then finds the call finished and drops the response, and the
 * client sees OK with no message. sendHeaders off the loop followed by close loses the headers the
 * same way (see MetadataEchoOverGrpcTest). The fix belongs in sluice-transport-grpc (the gRPC
 * server transport's module): keep one order for the calls' writes (e.g. queue a loop-side close
 * behind writes still on their way, as grpc-java's WriteQueue does). Enable this test with it.
 */
class GrpcServerCallOrderTest {
  @Disabled("GrpcServerCall: a close on the event loop overtakes a response sent just before from another thread")
  @Test
  void aResponseSentFromAnotherThreadIsNotOvertakenByACloseOnTheLoop() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    ServerCallHandler<StreamingOutputCallRequest, StreamingOutputCallResponse> handler =
        call -> {
              call.request(Long.MAX_VALUE);
              return new ServerCall.Listener<>() {
                @Override
                public void onMessage(StreamingOutputCallRequest message) {}

                @Override
                public void onHalfClose() {
                  // On the event loop: the response goes out from another thread, then the call
                  // closes here, once sendMessage has returned there.
                  CountDownLatch handedOver = new CountDownLatch(1);
                  other.execute(() -> {
                    call.sendMessage(StreamingOutputCallResponse.getDefaultInstance());
                    handedOver.countDown();
                  });
                  try {
                    handedOver.await(10, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  call.close(io.sluice.rpc.Status.OK);
                }

                @Override
                public void onCancel() {}

                @Override
                public void onReady(long n) {}
              };
            };
    ServiceDefinition service =
        ServiceDefinition.builder(GrpcTestService.SERVICE).add(GrpcTestService.FULL_DUPLEX_CALL, handler).build();
    GrpcServer.Running server =
        GrpcServer.create("127.0.0.1", 0).withServices(ServiceRegistry.builder().add(service).build()).start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      MethodDescriptor<StreamingOutputCallRequest, StreamingOutputCallResponse> m =
          MethodDescriptor.<StreamingOutputCallRequest, StreamingOutputCallResponse>newBuilder()
              .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(GrpcTestService.FULL_DUPLEX_CALL.fullName())
              .setRequestMarshaller(ProtoUtils.marshaller(StreamingOutputCallRequest.getDefaultInstance()))
              .setResponseMarshaller(ProtoUtils.marshaller(StreamingOutputCallResponse.getDefaultInstance()))
              .build();
      ClientCall<StreamingOutputCallRequest, StreamingOutputCallResponse> call = channel.newCall(m, CallOptions.DEFAULT);
      AtomicInteger responses = new AtomicInteger();
      CompletableFuture<Status> closed = new CompletableFuture<>();
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onMessage(StreamingOutputCallResponse message) {
          responses.incrementAndGet();
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
          closed.complete(status);
        }
      }, new Metadata());
      call.request(1);
      call.sendMessage(StreamingOutputCallRequest.getDefaultInstance());
      call.halfClose();
      assertThat(closed.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
      assertThat(responses.get()).as("responses").isEqualTo(1);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.close();
      other.shutdownNow();
    }
  }
}
