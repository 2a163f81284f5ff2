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
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.transport.grpc.GrpcServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * custom_metadata as grpc-java's client sees it, against {@link TestServiceImpl} on Sluice's gRPC
 * server: the echoed header arrives as a response header (before the response) and the binary
 * trailer as a trailer, for a unary and for a full-duplex call whose response and end are written
 * from the service's timer thread. The duplex call runs many times: the header must never be
 * missing. (It was, on every call, while MetadataEcho sent the header with the first response: a
 * header handed to the server's event loop from another thread is dropped there when the close
 * that follows it has already marked the call ended.)
 */
class MetadataEchoOverGrpcTest {
  private static final Metadata.Key<String> INITIAL =
      Metadata.Key.of(MetadataEcho.ECHO_INITIAL, Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> TRAILING =
      Metadata.Key.of(MetadataEcho.ECHO_TRAILING, Metadata.BINARY_BYTE_MARSHALLER);
  private static final byte[] TRAILING_VALUE = {0xa, 0xb, 0xa, 0xb, 0xa, 0xb};

  private static TestServiceImpl service;
  private static GrpcServer.Running server;
  private static ManagedChannel channel;

  @BeforeAll
  static void start() {
    service = new TestServiceImpl("echo-test");
    server = InteropGrpc.serve("127.0.0.1", 0, InteropServices.registry(service));
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    server.close();
    service.close();
  }

  private static <Req extends com.google.protobuf.Message, Resp extends com.google.protobuf.Message>
      MethodDescriptor<Req, Resp> method(
      io.sluice.rpc.MethodDescriptor<?, ?> m, MethodDescriptor.MethodType type, Req req, Resp resp) {
    return MethodDescriptor.<Req, Resp>newBuilder()
        .setType(type)
        .setFullMethodName(m.fullName())
        .setRequestMarshaller(ProtoUtils.marshaller(req))
        .setResponseMarshaller(ProtoUtils.marshaller(resp))
        .build();
  }

  /** What one call saw: headers, whether they came before the first message, trailers, status. */
  private static final class Seen<Resp> extends ClientCall.Listener<Resp> {
    final CompletableFuture<Status> closed = new CompletableFuture<>();
    volatile Metadata headers;
    volatile Metadata trailers;
    volatile boolean headersFirst = true;
    volatile int messages;

    @Override
    public void onHeaders(Metadata h) {
      headers = h;
    }

    @Override
    public void onMessage(Resp message) {
      if (headers == null) {
        headersFirst = false;
      }
      messages++;
    }

    @Override
    public void onClose(Status status, Metadata t) {
      trailers = t;
      closed.complete(status);
    }
  }

  private static Metadata echoHeaders() {
    Metadata md = new Metadata();
    md.put(INITIAL, "test_initial_metadata_value");
    md.put(TRAILING, TRAILING_VALUE);
    return md;
  }

  private static void assertEchoed(Seen<?> seen, int call) throws Exception {
    assertThat(seen.closed.get(20, TimeUnit.SECONDS).getCode()).as("call %d status", call).isEqualTo(Status.Code.OK);
    assertThat(seen.messages).as("call %d responses", call).isEqualTo(1);
    assertThat(seen.headersFirst).as("call %d headers first", call).isTrue();
    assertThat(seen.headers.get(INITIAL)).as("call %d echoed header", call).isEqualTo("test_initial_metadata_value");
    assertThat(seen.trailers.get(TRAILING)).as("call %d echoed trailer", call).isEqualTo(TRAILING_VALUE);
  }

  @Test
  void unaryEchoesHeaderAndTrailer() throws Exception {
    ClientCall<SimpleRequest, SimpleResponse> call = channel.newCall(
        method(GrpcTestService.UNARY_CALL, MethodDescriptor.MethodType.UNARY,
            SimpleRequest.getDefaultInstance(), SimpleResponse.getDefaultInstance()),
        CallOptions.DEFAULT);
    Seen<SimpleResponse> seen = new Seen<>();
    call.start(seen, echoHeaders());
    call.request(2);
    call.sendMessage(SimpleRequest.newBuilder().setResponseSize(314159).setPayload(Payloads.zeros(271828)).build());
    call.halfClose();
    assertEchoed(seen, 0);
  }

  @Test
  void fullDuplexEchoesHeaderAndTrailerEveryTime() throws Exception {
    MethodDescriptor<StreamingOutputCallRequest, StreamingOutputCallResponse> m =
        method(GrpcTestService.FULL_DUPLEX_CALL, MethodDescriptor.MethodType.BIDI_STREAMING,
            StreamingOutputCallRequest.getDefaultInstance(), StreamingOutputCallResponse.getDefaultInstance());
    for (int i = 0; i < 50; i++) {
      ClientCall<StreamingOutputCallRequest, StreamingOutputCallResponse> call = channel.newCall(m, CallOptions.DEFAULT);
      Seen<StreamingOutputCallResponse> seen = new Seen<>();
      call.start(seen, echoHeaders());
      call.request(2);
      call.sendMessage(StreamingOutputCallRequest.newBuilder()
          .addResponseParameters(ResponseParameters.newBuilder().setSize(314159))
          .setPayload(Payloads.zeros(271828))
          .build());
      call.halfClose();
      assertEchoed(seen, i);
    }
  }
}
