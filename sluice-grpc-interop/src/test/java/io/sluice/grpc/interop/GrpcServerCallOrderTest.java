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
import org.junit.jupiter.api.Test;

/**
 * Sluice's gRPC server call keeps the order of what a handler does across threads: a response sent
 * from another thread, then (after sendMessage returned there) a close made on the event loop,
 * reaches the client as the response and then OK. A hand-built handler, no flavor in between.
 *
 * <p>Both failed on every run before GrpcServerCall kept one queue of a call's writes: a response
 * handed to the loop from another thread was dropped by a close made on the loop meanwhile, and
 * headers handed over before a close were dropped by it.
 */
class GrpcServerCallOrderTest {
  /** What the client saw of one FullDuplexCall: its response headers, responses and status. */
  private record Seen(Metadata headers, int responses, Status status) {}

  /**
   * One FullDuplexCall against a server whose handler runs {@code atHalfClose} on the event loop
   * when the caller half-closes (with the call and a thread other than the loop).
   */
  private static Seen call(java.util.function.BiConsumer<ServerCall<StreamingOutputCallRequest, StreamingOutputCallResponse>, ExecutorService> atHalfClose)
      throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    ServerCallHandler<StreamingOutputCallRequest, StreamingOutputCallResponse> handler =
        call -> {
          call.request(Long.MAX_VALUE);
          return new ServerCall.Listener<>() {
            @Override
            public void onMessage(StreamingOutputCallRequest message) {}

            @Override
            public void onHalfClose() {
              atHalfClose.accept(call, other);
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
      java.util.concurrent.atomic.AtomicReference<Metadata> headers = new java.util.concurrent.atomic.AtomicReference<>();
      CompletableFuture<Status> closed = new CompletableFuture<>();
      call.start(new ClientCall.Listener<>() {
        @Override
        public void onHeaders(Metadata h) {
          headers.set(h);
        }

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
      Status status = closed.get(20, TimeUnit.SECONDS);
      return new Seen(headers.get(), responses.get(), status);
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.close();
      other.shutdownNow();
    }
  }

  /** Runs {@code work} on {@code other} and waits there for it, holding the event loop meanwhile. */
  private static void onOtherThread(ExecutorService other, Runnable work) {
    CountDownLatch done = new CountDownLatch(1);
    other.execute(() -> {
      try {
        work.run();
      } finally {
        done.countDown();
      }
    });
    try {
      done.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aResponseSentFromAnotherThreadIsNotOvertakenByACloseOnTheLoop() throws Exception {
    Seen seen = call((call, other) -> {
      onOtherThread(other, () -> call.sendMessage(StreamingOutputCallResponse.getDefaultInstance()));
      call.close(io.sluice.rpc.Status.OK); // on the loop, after sendMessage returned on the other thread
    });
    assertThat(seen.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(seen.responses()).as("responses").isEqualTo(1);
  }

  @Test
  void headersSentFromAnotherThreadSurviveTheCloseThatFollows() throws Exception {
    Seen seen = call((call, other) -> onOtherThread(other, () -> {
      call.sendHeaders(io.sluice.rpc.Headers.of("x-order", "kept"));
      call.sendMessage(StreamingOutputCallResponse.getDefaultInstance());
      call.close(io.sluice.rpc.Status.OK);
    }));
    assertThat(seen.status().getCode()).isEqualTo(Status.Code.OK);
    assertThat(seen.responses()).isEqualTo(1);
    assertThat(seen.headers().get(Metadata.Key.of("x-order", Metadata.ASCII_STRING_MARSHALLER)))
        .as("the handler's header").isEqualTo("kept");
  }
}
