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
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.transport.grpc.GrpcServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streamed responses of {@link TestServiceImpl} (written from its timer thread) all reach a
 * stock grpc-java client over Sluice's gRPC server, call after call: one request asking for one
 * response, sent with the half-close right behind it, as custom_metadata and the streaming cases
 * do. Before {@link ResponseSender} wrote the end of a call from the timer too, 15 to 40% of such
 * calls ended OK with no response (a close made on the event loop overtook the response handed
 * over from the timer; see GrpcServerCallOrderTest).
 */
class StreamedResponsesOverGrpcTest {
  private static final int CALLS = 200;
  private static TestServiceImpl service;
  private static GrpcServer.Running server;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() {
    service = new TestServiceImpl("streamed");
    server = InteropGrpc.serve("127.0.0.1", 0, InteropServices.registry(service));
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    server.close();
    service.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"FullDuplexCall", "HalfDuplexCall", "StreamingOutputCall"})
  void everyCallGetsItsResponse(String method) throws Exception {
    MethodDescriptor<StreamingOutputCallRequest, StreamingOutputCallResponse> m =
        MethodDescriptor.<StreamingOutputCallRequest, StreamingOutputCallResponse>newBuilder()
            .setType(method.equals("StreamingOutputCall")
                ? MethodDescriptor.MethodType.SERVER_STREAMING
                : MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName(GrpcTestService.SERVICE + "/" + method)
            .setRequestMarshaller(ProtoUtils.marshaller(StreamingOutputCallRequest.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(StreamingOutputCallResponse.getDefaultInstance()))
            .build();
    StreamingOutputCallRequest request =
        StreamingOutputCallRequest.newBuilder()
            .addResponseParameters(ResponseParameters.newBuilder().setSize(31415))
            .setPayload(Payloads.zeros(27182))
            .build();
    int missing = 0;
    for (int i = 0; i < CALLS; i++) {
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
      call.request(2);
      call.sendMessage(request);
      call.halfClose();
      assertThat(closed.get(20, TimeUnit.SECONDS).getCode()).as("call %d", i).isEqualTo(Status.Code.OK);
      if (responses.get() != 1) {
        missing++;
      }
    }
    assertThat(missing).as("calls of %d without their response", CALLS).isZero();
  }
}
