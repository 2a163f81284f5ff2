package io.sluice.transport.grpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import com.google.protobuf.MessageLite;
import com.google.protobuf.StringValue;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.sluice.transport.netty.internal.SelfSignedCertificates;
import java.net.InetSocketAddress;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;

/**
 * A stock grpc-java server (netty, shaded) on 127.0.0.1 with a hand-built service {@code
 * sluice.test.Echo} of well-known types, no code generation: the peer the gRPC client tests call.
 *
 * <ul>
 *   <li>{@code Unary} (StringValue): echoes; {@code status:<code>:<message>} fails with that
 *       status; {@code sleep} never answers and counts the server seeing the cancel; {@code
 *       headers} answers with the request metadata it saw; {@code gzip:<text>} answers {@code
 *       <text>} gzip-compressed; {@code empty} answers an empty message. Every answer carries a
 *       response header and a binary trailer.
 *   <li>{@code Bytes} (BytesValue): echoes.
 *   <li>{@code Stream} (StringValue {@code <count>:<size>}): {@code count} BytesValues of {@code
 *       size} bytes, sent only while the stream is ready (grpc-java's flow control), counted in
 *       {@link #sent}.
 *   <li>{@code Forever} (server streaming): answers nothing; counts the cancel it sees.
 *   <li>{@code Sum} (client streaming BytesValue): answers {@code <messages>:<bytes>}.
 *   <li>{@code Chat} (bidi StringValue): answers {@code echo:<text>} to each.
 * </ul>
 *
 * <p>It also serves {@link EchoServiceOnGrpcJava}, for Sluice's generated clients.
 */
final class GrpcJavaEchoServer implements AutoCloseable {
  static final String SERVICE = "sluice.test.Echo";

  final Server server;
  final X509Certificate certificate; // null without TLS
  final AtomicReference<Metadata> lastHeaders = new AtomicReference<>();
  final CountDownLatch cancelled = new CountDownLatch(1);
  final CountDownLatch started = new CountDownLatch(1);
  final CountDownLatch streamBlocked = new CountDownLatch(1);
  final AtomicInteger sent = new AtomicInteger();

  private GrpcJavaEchoServer(boolean tls) throws Exception {
    NettyServerBuilder b;
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", 0);
    if (tls) {
      SelfSignedCertificates.Generated g = SelfSignedCertificates.generate(List.of("127.0.0.1"), Duration.ofDays(1));
      certificate = g.certificate();
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry("server", g.keyPair().getPrivate(), new char[0], new Certificate[] {g.certificate()});
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, new char[0]);
      b = NettyServerBuilder.forAddress(address, TlsServerCredentials.newBuilder().keyManager(kmf.getKeyManagers()).build());
    } else {
      certificate = null;
      b = NettyServerBuilder.forAddress(address);
    }
    server = b.maxInboundMessageSize(32 << 20).addService(ServerInterceptors.intercept(service(), headersSeen()))
            .addService(EchoServiceOnGrpcJava.definition())
            .build()
            .start();
  }

  static GrpcJavaEchoServer h2c() throws Exception {
    return new GrpcJavaEchoServer(false);
  }

  static GrpcJavaEchoServer tls() throws Exception {
    return new GrpcJavaEchoServer(true);
  }

  int port() {
    return server.getPort();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(10, TimeUnit.SECONDS);
  }

  private static final Metadata.Key<String> REPLY_HEADER = Metadata.Key.of("x-reply", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<byte[]> REPLY_TRAILER = Metadata.Key.of("x-trailer-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private ServerInterceptor headersSeen() {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        lastHeaders.set(headers);
        ServerCall<Q, R> withMetadata =
            new io.grpc.ForwardingServerCall.SimpleForwardingServerCall<>(call) {
              @Override
              public void sendHeaders(Metadata h) {
                h.put(REPLY_HEADER, "yes");
                super.sendHeaders(h);
              }

              @Override
              public void close(Status status, Metadata trailers) {
                trailers.put(REPLY_TRAILER, new byte[] {0, 1, (byte) 0xFE, (byte) 0xFF});
                super.close(status, trailers);
              }
            };
        return next.startCall(withMetadata, headers);
      }
    };
  }

  private static <T extends MessageLite> MethodDescriptor.Marshaller<T> marshaller(T instance) {
    @SuppressWarnings("unchecked")
    MethodDescriptor.Marshaller<T> m = (MethodDescriptor.Marshaller<T>) ProtoUtils.marshaller((com.google.protobuf.Message) instance);
    return m;
  }

  private static <Q extends MessageLite, R extends MessageLite> MethodDescriptor<Q, R> method(
      String name, MethodDescriptor.MethodType type, Q request, R response) {
    return MethodDescriptor.<Q, R>newBuilder()
        .setType(type)
        .setFullMethodName(SERVICE + "/" + name)
        .setRequestMarshaller(marshaller(request))
        .setResponseMarshaller(marshaller(response))
        .build();
  }

  private ServerServiceDefinition service() {
    StringValue s = StringValue.getDefaultInstance();
    BytesValue bv = BytesValue.getDefaultInstance();
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(method("Unary", MethodDescriptor.MethodType.UNARY, s, s), ServerCalls.asyncUnaryCall(this::unary))
        .addMethod(
            method("Bytes", MethodDescriptor.MethodType.UNARY, bv, bv),
            ServerCalls.<BytesValue, BytesValue>asyncUnaryCall(
                (req, out) -> {
                  out.onNext(req);
                  out.onCompleted();
                }))
        .addMethod(method("Stream", MethodDescriptor.MethodType.SERVER_STREAMING, s, bv), ServerCalls.asyncServerStreamingCall(this::stream))
        .addMethod(
            method("Forever", MethodDescriptor.MethodType.SERVER_STREAMING, s, s),
            ServerCalls.<StringValue, StringValue>asyncServerStreamingCall(
                (req, out) -> {
                  ((ServerCallStreamObserver<StringValue>) out).setOnCancelHandler(cancelled::countDown);
                  started.countDown();
                }))
        .addMethod(method("Sum", MethodDescriptor.MethodType.CLIENT_STREAMING, bv, s), ServerCalls.asyncClientStreamingCall(GrpcJavaEchoServer::sum))
        .addMethod(method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING, s, s), ServerCalls.asyncBidiStreamingCall(GrpcJavaEchoServer::chat))
        .build();
  }

  private void unary(StringValue req, StreamObserver<StringValue> out) {
    String text = req.getValue();
    if (text.startsWith("status:")) {
      int colon = text.indexOf(':', 7);
      out.onError(
          Status.fromCodeValue(Integer.parseInt(text.substring(7, colon)))
              .withDescription(text.substring(colon + 1))
              .asRuntimeException());
      return;
    }
    if (text.equals("sleep")) {
      Context.current().addListener(c -> cancelled.countDown(), Runnable::run);
      started.countDown();
      return;
    }
    String answer = text;
    if (text.equals("headers")) {
      Metadata md = lastHeaders.get();
      byte[] bin = md.get(Metadata.Key.of("x-data-bin", Metadata.BINARY_BYTE_MARSHALLER));
      answer =
          "x-ascii=" + md.get(Metadata.Key.of("x-ascii", Metadata.ASCII_STRING_MARSHALLER))
              + ";x-data-bin=" + (bin == null ? "null" : HexFormat.of().formatHex(bin))
              + ";te=" + md.get(Metadata.Key.of("te", Metadata.ASCII_STRING_MARSHALLER))
              + ";user-agent=" + md.get(Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER));
    } else if (text.startsWith("gzip:")) {
      ((ServerCallStreamObserver<StringValue>) out).setCompression("gzip");
      answer = text.substring(5);
    } else if (text.equals("empty")) {
      answer = "";
    }
    out.onNext(StringValue.of(answer));
    out.onCompleted();
  }

  private void stream(StringValue req, StreamObserver<BytesValue> plain) {
    String[] parts = req.getValue().split(":");
    int count = Integer.parseInt(parts[0]);
    byte[] bytes = new byte[Integer.parseInt(parts[1])];
    ServerCallStreamObserver<BytesValue> out = (ServerCallStreamObserver<BytesValue>) plain;
    if (parts.length > 2 && parts[2].equals("gzip")) {
      out.setCompression("gzip");
    }
    boolean[] done = {false};
    out.setOnReadyHandler(
        () -> {
          while (!done[0] && out.isReady() && sent.get() < count) {
            int i = sent.getAndIncrement();
            bytes[0] = (byte) i;
            out.onNext(BytesValue.of(ByteString.copyFrom(bytes)));
          }
          if (!done[0] && sent.get() == count) {
            done[0] = true;
            out.onCompleted();
          } else if (!done[0] && sent.get() >= 2) {
            // Not ready with messages out: grpc-java holds more than 32 KiB it could not send.
            // (Right after the first 256 KiB message it is briefly not ready whatever the client.)
            streamBlocked.countDown();
          }
        });
  }

  private static StreamObserver<BytesValue> sum(StreamObserver<StringValue> out) {
    return new StreamObserver<>() {
      int messages;
      long bytes;

      @Override
      public void onNext(BytesValue v) {
        messages++;
        bytes += v.getValue().size();
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        out.onNext(StringValue.of(messages + ":" + bytes));
        out.onCompleted();
      }
    };
  }

  private static StreamObserver<StringValue> chat(StreamObserver<StringValue> out) {
    return new StreamObserver<>() {
      @Override
      public void onNext(StringValue v) {
        out.onNext(StringValue.of("echo:" + v.getValue()));
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }
}
