package io.sluice.grpc.interop;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.MessageLite;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.testing.integration.GrpcTestService;
import io.grpc.testing.integration.GrpcTestServiceServer;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.sluice.rpc.ForwardingServerCall;
import io.sluice.rpc.Headers;
import io.sluice.rpc.ServerCall;
import io.sluice.rpc.ServerCallHandler;
import io.sluice.rpc.ServerInterceptor;
import io.sluice.rpc.ServerInterceptors;
import io.sluice.rpc.ServiceRegistry;
import io.sluice.transport.grpc.GrpcServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerInterceptors} on Sluice's gRPC server, as grpc-java's client sees them: an
 * interceptor that refuses calls without a token (UNAUTHENTICATED with a trailer; the handler never
 * starts; the class's leak check finds the requests released) and one that sends a response header
 * and adds a trailer, on a unary and a full-duplex call of {@link TestServiceImpl}.
 */
class InterceptorsOverGrpcTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> REALM =
      Metadata.Key.of("www-authenticate", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> SERVER_ID = Metadata.Key.of("server-id", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> ENDED = Metadata.Key.of("ended", Metadata.ASCII_STRING_MARSHALLER);

  private static final AtomicInteger started = new AtomicInteger();
  private static TestServiceImpl service;
  private static GrpcServer.Running server;
  private static ManagedChannel channel;

  /** Refuses calls without the token; counts the others (it runs right before the handler). */
  private static final class Auth implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      if (!"Bearer t0k3n".equals(call.metadata().headers().get("authorization"))) {
        return ServerInterceptors.reject(
            call,
            io.sluice.rpc.Status.of(io.sluice.rpc.Status.Code.UNAUTHENTICATED, "no valid token"),
            Headers.of("www-authenticate", "Bearer realm=sluice"));
      }
      started.incrementAndGet();
      return next.startCall(call);
    }
  }

  /** Sends {@code server-id: s1} as the call starts; adds {@code ended: <code>} to its trailers. */
  private static final class AddsMetadata implements ServerInterceptor {
    @Override
    public <Req extends MessageLite, Resp extends MessageLite> ServerCall.Listener<Req> interceptCall(
        ServerCall<Req, Resp> call, ServerCallHandler<Req, Resp> next) {
      call.sendHeaders(Headers.of("server-id", "s1"));
      return next.startCall(
          new ForwardingServerCall<>(call) {
            @Override
            public void close(io.sluice.rpc.Status status) {
              close(status, Headers.EMPTY);
            }

            @Override
            public void close(io.sluice.rpc.Status status, Headers trailers) {
              super.close(status, trailers.toBuilder().add("ended", status.code().name()).build());
            }
          });
    }
  }

  @BeforeAll
  static void start() {
    service = new TestServiceImpl("interceptors-test");
    server =
        InteropGrpc.serve(
            "127.0.0.1",
            0,
            ServiceRegistry.builder()
                .add(ServerInterceptors.intercept(
                    new GrpcTestServiceServer(service).bindService(), new Auth(), new AddsMetadata()))
                .build());
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

  private static final MethodDescriptor<SimpleRequest, SimpleResponse> UNARY =
      method(GrpcTestService.UNARY_CALL, MethodDescriptor.MethodType.UNARY,
          SimpleRequest.getDefaultInstance(), SimpleResponse.getDefaultInstance());
  private static final MethodDescriptor<StreamingOutputCallRequest, StreamingOutputCallResponse> DUPLEX =
      method(GrpcTestService.FULL_DUPLEX_CALL, MethodDescriptor.MethodType.BIDI_STREAMING,
          StreamingOutputCallRequest.getDefaultInstance(), StreamingOutputCallResponse.getDefaultInstance());

  /** What one call saw. */
  private static final class Seen<Resp> extends ClientCall.Listener<Resp> {
    final CompletableFuture<Status> closed = new CompletableFuture<>();
    volatile Metadata headers;
    volatile Metadata trailers;
    final AtomicInteger messages = new AtomicInteger();

    @Override
    public void onHeaders(Metadata h) {
      headers = h;
    }

    @Override
    public void onMessage(Resp message) {
      messages.incrementAndGet();
    }

    @Override
    public void onClose(Status status, Metadata t) {
      trailers = t;
      closed.complete(status);
    }
  }

  private static Metadata token(String value) {
    Metadata md = new Metadata();
    if (value != null) {
      md.put(AUTHORIZATION, value);
    }
    return md;
  }

  private static Seen<SimpleResponse> unary(Metadata md) {
    ClientCall<SimpleRequest, SimpleResponse> call = channel.newCall(UNARY, CallOptions.DEFAULT);
    Seen<SimpleResponse> seen = new Seen<>();
    call.start(seen, md);
    call.request(2);
    call.sendMessage(SimpleRequest.newBuilder().setResponseSize(100).setPayload(Payloads.zeros(8192)).build());
    call.halfClose();
    return seen;
  }

  private static Seen<StreamingOutputCallResponse> duplex(Metadata md, boolean halfClose) {
    ClientCall<StreamingOutputCallRequest, StreamingOutputCallResponse> call = channel.newCall(DUPLEX, CallOptions.DEFAULT);
    Seen<StreamingOutputCallResponse> seen = new Seen<>();
    call.start(seen, md);
    call.request(2);
    call.sendMessage(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(100))
        .setPayload(Payloads.zeros(8192))
        .build());
    if (halfClose) {
      call.halfClose();
    }
    return seen;
  }

  private static void assertRefused(Seen<?> seen) throws Exception {
    Status s = seen.closed.get(20, TimeUnit.SECONDS);
    assertThat(s.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(s.getDescription()).isEqualTo("no valid token");
    assertThat(seen.messages).hasValue(0);
    assertThat(seen.trailers.get(REALM)).isEqualTo("Bearer realm=sluice");
    assertThat(seen.trailers.get(ENDED)).isEqualTo("UNAUTHENTICATED");
  }

  @Test
  void callsWithoutTheTokenAreRefusedAndNoHandlerStarts() throws Exception {
    int before = started.get();
    assertRefused(unary(token(null)));
    assertRefused(unary(token("Bearer nope")));
    assertRefused(duplex(token(null), true));
    assertRefused(duplex(token(null), false)); // the caller never ends its requests
    assertThat(started.get() - before).as("calls past the interceptor").isZero();
  }

  @Test
  void callsWithTheTokenGetTheHeaderAndTheTrailer() throws Exception {
    int before = started.get();
    Seen<SimpleResponse> u = unary(token("Bearer t0k3n"));
    assertThat(u.closed.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(u.messages).hasValue(1);
    assertThat(u.headers.get(SERVER_ID)).isEqualTo("s1");
    assertThat(u.trailers.get(ENDED)).isEqualTo("OK");

    Seen<StreamingOutputCallResponse> d = duplex(token("Bearer t0k3n"), true);
    assertThat(d.closed.get(20, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
    assertThat(d.messages).hasValue(1);
    assertThat(d.headers.get(SERVER_ID)).isEqualTo("s1");
    assertThat(d.trailers.get(ENDED)).isEqualTo("OK");
    assertThat(started.get() - before).isEqualTo(2);
  }
}
