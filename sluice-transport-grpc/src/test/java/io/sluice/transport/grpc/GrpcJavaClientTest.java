package io.sluice.transport.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * grpc-java's own client (grpc-netty-shaded, hand-built method descriptors, no codegen) calling a
 * Sluice service over gRPC. Subclasses change how the server is reached (h2c, TLS, the
 * multiprotocol port).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class GrpcJavaClientTest {
  static final MethodDescriptor<StringValue, StringValue> UNARY =
      method("Unary", MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
  static final MethodDescriptor<BytesValue, BytesValue> BYTES =
      method("Bytes", MethodDescriptor.MethodType.UNARY, BytesValue.getDefaultInstance(), BytesValue.getDefaultInstance());
  static final MethodDescriptor<StringValue, StringValue> HANG =
      method("Hang", MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
  static final MethodDescriptor<StringValue, BytesValue> COUNT =
      method("Count", MethodDescriptor.MethodType.SERVER_STREAMING, StringValue.getDefaultInstance(), BytesValue.getDefaultInstance());
  static final MethodDescriptor<BytesValue, StringValue> SUM =
      method("Sum", MethodDescriptor.MethodType.CLIENT_STREAMING, BytesValue.getDefaultInstance(), StringValue.getDefaultInstance());
  static final MethodDescriptor<BytesValue, BytesValue> CHAT =
      method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING, BytesValue.getDefaultInstance(), BytesValue.getDefaultInstance());
  static final MethodDescriptor<BytesValue, StringValue> SINK =
      method("Sink", MethodDescriptor.MethodType.CLIENT_STREAMING, BytesValue.getDefaultInstance(), StringValue.getDefaultInstance());

  static <Req extends com.google.protobuf.Message, Resp extends com.google.protobuf.Message>
      MethodDescriptor<Req, Resp> method(String name, MethodDescriptor.MethodType type, Req req, Resp resp) {
    return method(EchoService.NAME, name, type, req, resp);
  }

  static <Req extends com.google.protobuf.Message, Resp extends com.google.protobuf.Message>
      MethodDescriptor<Req, Resp> method(
          String service, String name, MethodDescriptor.MethodType type, Req req, Resp resp) {
    return MethodDescriptor.<Req, Resp>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(service, name))
        .setRequestMarshaller(ProtoUtils.marshaller(req))
        .setResponseMarshaller(ProtoUtils.marshaller(resp))
        .build();
  }

  EchoService service;
  ManagedChannel channel;

  /** Starts the server for {@code service}; returns its port. */
  abstract int startServer(EchoService service) throws Exception;

  abstract ManagedChannel channel(int port) throws Exception;

  abstract void stopServer() throws Exception;

  @BeforeAll
  void start() throws Exception {
    service = new EchoService();
    channel = channel(startServer(service));
  }

  @AfterAll
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    stopServer();
  }

  static Metadata.Key<String> ascii(String k) {
    return Metadata.Key.of(k, Metadata.ASCII_STRING_MARSHALLER);
  }

  static Metadata.Key<byte[]> binary(String k) {
    return Metadata.Key.of(k, Metadata.BINARY_BYTE_MARSHALLER);
  }

  static BytesValue bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return BytesValue.of(ByteString.copyFrom(b));
  }

  static io.grpc.Status.Code codeOf(Runnable r) {
    try {
      r.run();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
    return io.grpc.Status.Code.OK;
  }

  @Test
  void unaryEchoes() {
    StringValue out = ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.of("hello"));
    assertThat(out.getValue()).isEqualTo("hello");
  }

  @Test
  void emptyMessagesBothWays() {
    StringValue out = ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.getDefaultInstance());
    assertThat(out).isEqualTo(StringValue.getDefaultInstance());
    assertThat(out.getSerializedSize()).isZero();
  }

  @Test
  void largeMessagesBothWaysPastTheWindows() {
    BytesValue big = bytes(8 << 20);
    BytesValue out = ClientCalls.blockingUnaryCall(channel, BYTES, CallOptions.DEFAULT, big);
    assertThat(out).isEqualTo(big);
  }

  @Test
  void serverStreaming() {
    Iterator<BytesValue> it =
        ClientCalls.blockingServerStreamingCall(channel, COUNT, CallOptions.DEFAULT, StringValue.of("100:1000"));
    int n = 0;
    while (it.hasNext()) {
      assertThat(it.next().getValue().size()).isEqualTo(1000);
      n++;
    }
    assertThat(n).isEqualTo(100);
  }

  @Test
  void serverStreamingLargeMessagesUnderFlowControl() {
    Iterator<BytesValue> it =
        ClientCalls.blockingServerStreamingCall(channel, COUNT, CallOptions.DEFAULT, StringValue.of("24:1048576"));
    int n = 0;
    while (it.hasNext()) {
      assertThat(it.next().getValue().size()).isEqualTo(1 << 20);
      n++;
    }
    assertThat(n).isEqualTo(24);
  }

  @Test
  void clientStreaming() throws Exception {
    CompletableFuture<String> result = new CompletableFuture<>();
    StreamObserver<BytesValue> req =
        ClientCalls.asyncClientStreamingCall(channel.newCall(SUM, CallOptions.DEFAULT), observer(result));
    long total = 0;
    for (int i = 0; i < 50; i++) {
      req.onNext(bytes(i * 100));
      total += i * 100;
    }
    req.onCompleted();
    assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("50:" + total);
  }

  @Test
  void clientStreamingWithNoMessages() throws Exception {
    CompletableFuture<String> result = new CompletableFuture<>();
    StreamObserver<BytesValue> req =
        ClientCalls.asyncClientStreamingCall(channel.newCall(SUM, CallOptions.DEFAULT), observer(result));
    req.onCompleted();
    assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("0:0");
  }

  private static StreamObserver<StringValue> observer(CompletableFuture<String> result) {
    return new StreamObserver<>() {
      @Override
      public void onNext(StringValue v) {
        result.complete(v.getValue());
      }

      @Override
      public void onError(Throwable t) {
        result.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        result.complete("completed without a message");
      }
    };
  }

  @Test
  void bidiPingPong() throws Exception {
    java.util.concurrent.BlockingQueue<Object> got = new java.util.concurrent.LinkedBlockingQueue<>();
    StreamObserver<BytesValue> req =
        ClientCalls.asyncBidiStreamingCall(
            channel.newCall(CHAT, CallOptions.DEFAULT),
            new StreamObserver<BytesValue>() {
              @Override
              public void onNext(BytesValue v) {
                got.add(v);
              }

              @Override
              public void onError(Throwable t) {
                got.add(t);
              }

              @Override
              public void onCompleted() {
                got.add("done");
              }
            });
    for (int i = 0; i < 20; i++) {
      BytesValue ping = bytes(i * 1000);
      req.onNext(ping);
      assertThat(got.poll(30, TimeUnit.SECONDS)).isEqualTo(ping); // each answered before the next
    }
    req.onCompleted();
    assertThat(got.poll(30, TimeUnit.SECONDS)).isEqualTo("done");
  }

  @Test
  void statusCodeAndSpecialMessage() {
    String msg = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP \uD83D\uDE08\t\n 100%";
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.of("status:2:" + msg)));
    assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.UNKNOWN);
    assertThat(e.getStatus().getDescription()).isEqualTo(msg);
    assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.of("status:9:x"))))
        .isEqualTo(io.grpc.Status.Code.FAILED_PRECONDITION);
  }

  @Test
  void aHandlerThatThrowsEndsTheCallUnknown() {
    StatusRuntimeException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class,
            () -> ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.of("throw")));
    assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.UNKNOWN);
    assertThat(e.getStatus().getDescription()).as("the exception's text stays on the server").isNull();
    assertThat(ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT, StringValue.of("after")).getValue())
        .isEqualTo("after");
  }

  /** A bidi call left open on the channel's connection: echoes what it is sent. */
  private static final class OpenChat {
    final ClientCall<BytesValue, BytesValue> call;
    final java.util.concurrent.BlockingQueue<BytesValue> got = new java.util.concurrent.LinkedBlockingQueue<>();
    final CompletableFuture<io.grpc.Status> closed = new CompletableFuture<>();

    OpenChat(ManagedChannel channel) throws Exception {
      call = channel.newCall(CHAT, CallOptions.DEFAULT);
      call.start(
          new ClientCall.Listener<BytesValue>() {
            @Override
            public void onMessage(BytesValue message) {
              got.add(message);
            }

            @Override
            public void onClose(io.grpc.Status status, Metadata trailers) {
              closed.complete(status);
            }
          },
          new Metadata());
      call.request(Integer.MAX_VALUE);
      assertThat(echo(1)).as("the open call echoes").isEqualTo(bytes(1));
    }

    BytesValue echo(int n) throws Exception {
      call.sendMessage(bytes(n));
      BytesValue m = got.poll(30, TimeUnit.SECONDS);
      if (m == null) {
        throw new AssertionError("no echo; the call closed with " + closed.getNow(null));
      }
      return m;
    }

    void finish() throws Exception {
      call.halfClose();
      assertThat(closed.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(io.grpc.Status.Code.OK);
    }
  }

  @Test
  void aHandlerWhoseOnCancelThrowsDoesNotTakeTheConnectionDown() throws Exception {
    MethodDescriptor<StringValue, StringValue> throwOnCancel =
        method("ThrowOnCancel", MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
    OpenChat other = new OpenChat(channel);
    ClientCall<StringValue, StringValue> call = channel.newCall(throwOnCancel, CallOptions.DEFAULT);
    CompletableFuture<io.grpc.Status> closed = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<StringValue>() {
          @Override
          public void onClose(io.grpc.Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    call.sendMessage(StringValue.of("x"));
    call.halfClose();
    call.request(1);
    assertThat(other.echo(2)).isEqualTo(bytes(2)); // the call above has reached the server by now
    call.cancel("the caller cancels", null);
    service.throwOnCancelCalled.get(30, TimeUnit.SECONDS);
    assertThat(closed.get(30, TimeUnit.SECONDS).getCode()).isEqualTo(io.grpc.Status.Code.CANCELLED);
    // The other call on the same connection goes on.
    assertThat(other.echo(3)).isEqualTo(bytes(3));
    other.finish();
  }

  @Test
  void aHandlerWhoseOnReadyThrowsFailsOnlyItsCall() throws Exception {
    MethodDescriptor<StringValue, BytesValue> throwOnReady =
        method("ThrowOnReady", MethodDescriptor.MethodType.SERVER_STREAMING, StringValue.getDefaultInstance(), BytesValue.getDefaultInstance());
    OpenChat other = new OpenChat(channel);
    Iterator<BytesValue> it = ClientCalls.blockingServerStreamingCall(channel, throwOnReady, CallOptions.DEFAULT, StringValue.of("x"));
    StatusRuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class, it::hasNext);
    assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(io.grpc.Status.Code.UNKNOWN);
    assertThat(other.echo(4)).isEqualTo(bytes(4));
    other.finish();
  }

  @Test
  void metadataEchoedAsHeaderAndBinaryTrailer() {
    Metadata out = new Metadata();
    out.put(ascii("x-echo-initial"), "test_initial_metadata_value");
    byte[] trailing = {(byte) 0xAB, (byte) 0xAB, (byte) 0xAB, 0, 1};
    out.put(binary("x-echo-trailing-bin"), trailing);
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    io.grpc.Channel c =
        ClientInterceptors.intercept(
            channel,
            MetadataUtils.newAttachHeadersInterceptor(out),
            MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    ClientCalls.blockingUnaryCall(c, UNARY, CallOptions.DEFAULT, StringValue.of("m"));
    assertThat(headers.get().get(ascii("x-echo-initial"))).isEqualTo("test_initial_metadata_value");
    assertThat(trailers.get().get(binary("x-echo-trailing-bin"))).isEqualTo(trailing);
  }

  @Test
  void metadataOnAnErrorGoesInTheTrailersOnlyResponse() {
    Metadata out = new Metadata();
    out.put(binary("x-echo-trailing-bin"), new byte[] {9, 8, 7});
    AtomicReference<Metadata> headers = new AtomicReference<>();
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    io.grpc.Channel c =
        ClientInterceptors.intercept(
            channel,
            MetadataUtils.newAttachHeadersInterceptor(out),
            MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
    assertThat(codeOf(() -> ClientCalls.blockingUnaryCall(c, UNARY, CallOptions.DEFAULT, StringValue.of("status:5:gone"))))
        .isEqualTo(io.grpc.Status.Code.NOT_FOUND);
    assertThat(trailers.get().get(binary("x-echo-trailing-bin"))).containsExactly(9, 8, 7);
  }

  @Test
  void deadlineExceededAndTheHandlerIsCancelled() throws Exception {
    EchoService fresh = service;
    CompletableFuture<io.grpc.Status.Code> code = new CompletableFuture<>();
    code.complete(
        codeOf(
            () ->
                ClientCalls.blockingUnaryCall(
                    channel, HANG, CallOptions.DEFAULT.withDeadlineAfter(200, TimeUnit.MILLISECONDS), StringValue.of("x"))));
    assertThat(code.get()).isEqualTo(io.grpc.Status.Code.DEADLINE_EXCEEDED);
    assertThat(fresh.hangCancelled.get(30, TimeUnit.SECONDS).code()).isEqualTo(io.sluice.rpc.Status.Code.CANCELLED);
  }

  @Test
  void aHandlerThatIgnoresOnReadyIsStoppedWhenTheCallerDoesNotRead() throws Exception {
    MethodDescriptor<StringValue, BytesValue> flood =
        method("Flood", MethodDescriptor.MethodType.SERVER_STREAMING, StringValue.getDefaultInstance(), BytesValue.getDefaultInstance());
    ClientCall<StringValue, BytesValue> call = channel.newCall(flood, CallOptions.DEFAULT);
    CompletableFuture<io.grpc.Status> closed = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<BytesValue>() {
          @Override
          public void onClose(io.grpc.Status status, Metadata trailers) {
            closed.complete(status);
          }
        },
        new Metadata());
    // No call.request(): the client reads no response at all.
    call.sendMessage(StringValue.of("go"));
    call.halfClose();
    // 200 MiB if nothing stopped it; the server fails the call at 64 MiB queued.
    assertThat(service.floodSent.get(30, TimeUnit.SECONDS)).isLessThan(100);
    assertThat(service.floodCancelled.get(30, TimeUnit.SECONDS).description()).isEqualTo("flood");
    call.cancel("done", null);
    assertThat(closed.get(30, TimeUnit.SECONDS).isOk()).isFalse();
  }

  @Test
  void aCancelledCallIsCancelledInTheHandler() throws Exception {
    ClientCall<BytesValue, BytesValue> call = channel.newCall(CHAT, CallOptions.DEFAULT);
    CompletableFuture<BytesValue> first = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<BytesValue>() {
          @Override
          public void onMessage(BytesValue message) {
            first.complete(message);
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(bytes(10));
    assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(bytes(10));
    call.cancel("cancel after first response", null);
    assertThat(service.chatCancelled.get(30, TimeUnit.SECONDS).description()).isEqualTo("chat");
  }

  @Test
  void unknownServiceAndMethodAreUnimplemented() {
    MethodDescriptor<StringValue, StringValue> noService =
        method("nope.Nothing", "Unary", MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
    MethodDescriptor<StringValue, StringValue> noMethod =
        method("Missing", MethodDescriptor.MethodType.UNARY, StringValue.getDefaultInstance(), StringValue.getDefaultInstance());
    StatusRuntimeException e1 =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(channel, noService, CallOptions.DEFAULT, StringValue.of("x")));
    assertThat(e1.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.UNIMPLEMENTED);
    assertThat(e1.getStatus().getDescription()).contains("unknown service nope.Nothing");
    StatusRuntimeException e2 =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class, () -> ClientCalls.blockingUnaryCall(channel, noMethod, CallOptions.DEFAULT, StringValue.of("x")));
    assertThat(e2.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.UNIMPLEMENTED);
    assertThat(e2.getStatus().getDescription()).contains("unknown method Missing");
  }

  @Test
  void gzipRequests() {
    BytesValue big = bytes(300_000);
    BytesValue out = ClientCalls.blockingUnaryCall(channel, BYTES, CallOptions.DEFAULT.withCompression("gzip"), big);
    assertThat(out).isEqualTo(big);
    StringValue s = ClientCalls.blockingUnaryCall(channel, UNARY, CallOptions.DEFAULT.withCompression("gzip"), StringValue.of("z"));
    assertThat(s.getValue()).isEqualTo("z");
  }

  @Test
  void aCallerThatSendsWithoutTheServerAskingIsHeldByTheWindow() throws Exception {
    // Sink never asks for a message: what the client manages to send is bounded by the stream
    // window (1 MiB) plus grpc-java's own small buffer, never the 64 MiB it tries to send.
    CountDownLatch notReady = new CountDownLatch(1);
    AtomicReference<ClientCallStreamObserver<BytesValue>> ref = new AtomicReference<>();
    CompletableFuture<String> done = new CompletableFuture<>();
    ClientCalls.asyncClientStreamingCall(
        channel.newCall(SINK, CallOptions.DEFAULT),
        new ClientResponseObserver<BytesValue, StringValue>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<BytesValue> requestStream) {
            ref.set(requestStream);
          }

          @Override
          public void onNext(StringValue value) {}

          @Override
          public void onError(Throwable t) {
            done.complete("error");
          }

          @Override
          public void onCompleted() {
            done.complete("completed");
          }
        });
    service.sinkStarted.get(30, TimeUnit.SECONDS);
    ClientCallStreamObserver<BytesValue> req = ref.get();
    BytesValue chunk = bytes(64 << 10);
    long sent = 0;
    // Bounded: 1024 sends of 64 KiB at most; a wait for readiness of at most 1 s each time.
    for (int i = 0; i < 1024; i++) {
      int waited = 0;
      while (!req.isReady() && waited < 10) {
        Thread.sleep(100);
        waited++;
      }
      if (!req.isReady()) {
        notReady.countDown();
        break;
      }
      req.onNext(chunk);
      sent += chunk.getValue().size();
    }
    assertThat(notReady.getCount()).as("the client stayed ready after %d bytes", sent).isZero();
    assertThat(sent).isLessThan(4L << 20);
    req.cancel("done", null);
    assertThat(service.sinkCancelled.get(30, TimeUnit.SECONDS).description()).isEqualTo("sink");
  }

  @Test
  void aCallerThatDoesNotReadStopsTheHandler() throws Exception {
    ClientCall<StringValue, BytesValue> call = channel.newCall(COUNT, CallOptions.DEFAULT);
    CompletableFuture<BytesValue> first = new CompletableFuture<>();
    call.start(
        new ClientCall.Listener<BytesValue>() {
          @Override
          public void onMessage(BytesValue message) {
            first.complete(message);
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(StringValue.of("100000:65536")); // 6.5 GB if nothing held it back
    call.halfClose();
    first.get(30, TimeUnit.SECONDS);
    // Whatever the time waited, the handler is allowed a bounded number of messages: those that
    // fit the client's window and the server's high water mark, a few dozen.
    Thread.sleep(500);
    assertThat(service.countSent.get()).isLessThanOrEqualTo(128);
    call.cancel("enough", null);
  }
}
